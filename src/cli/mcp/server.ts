// `kb mcp`: kb for LLM tools over the Model Context Protocol (stdio). Four tools — search, get, ask,
// status — whose inputs are checked against their schemas and whose results are kb's wire format
// (docs/design.md), as JSON text and as structured content. Bad input is an MCP InvalidParams error with
// kb's message; anything else an InternalError. Nothing but protocol goes to stdout.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { KbError, toErrorPayload } from '../../shared/errors.js';
import { AskResultSchema, KbStatusSchema, SearchParamsSchema, SearchResultSchema, SpanSchema } from '../../shared/wire.js';
import type { KbClient } from '../../shared/api.js';

const BAD_INPUT = new Set(['INVALID_ARGUMENT', 'NOT_FOUND', 'QUERY_INVALID', 'VANISHED']);

function reply<T extends object>(value: T): { content: { type: 'text'; text: string }[]; structuredContent: Record<string, unknown> } {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    const p = toErrorPayload(e);
    throw new McpError(BAD_INPUT.has(p.code) ? ErrorCode.InvalidParams : ErrorCode.InternalError, `${p.code}: ${p.message}`, {
      code: p.code,
    });
  }
}

/** The MCP tools over a client of the contract: the same calls, and checks, as the app's. */
export function mcpServer(kb: KbClient, version: string): McpServer {
  const server = new McpServer(
    { name: 'kb', version },
    {
      instructions:
        "Search the user's own documents (notes, code, PDFs, scans, recordings, Word files, slides, spreadsheets, web pages, e-books, mail). Every hit cites an exact span (file URI with #L12-L34, #page=N, #t=start,end, #xywh=…, #para=12-18, #slide=7, #row=12-40, #:~:text=…, #epubcfi(…) or #msg=…); read it with get, and cite that URI in your answer.",
    },
  );

  server.registerTool(
    'search',
    {
      title: 'Search documents',
      description:
        'Hybrid (words + meaning) search over the indexed documents. Each hit has text, a snippet and a citation whose uri points at the exact span.',
      // The same params as every other way to search (wire.ts): one source for names, limits and defaults.
      inputSchema: SearchParamsSchema.shape,
      outputSchema: SearchResultSchema,
    },
    async (a) => reply(await guarded(() => kb.search(a))),
  );

  server.registerTool(
    'get',
    {
      title: 'Read a cited span',
      description:
        'The text of a span: give a citation uri (file:///…#L12-L34, #page=3, #t=10,20, #xywh=…, #para=12-18, #slide=7, #row=12-40, #sheet=Name&row=2-9, #:~:text=first,last, #epubcfi(…), #msg=…), or a doc_id with lines, page or time. Without a span, the whole document (capped).',
      inputSchema: {
        uri: z.string().optional().describe('a citation uri or a path, with or without #fragment'),
        doc_id: z.string().optional(),
        lines: z.tuple([z.number().int().min(1), z.number().int().min(1)]).optional(),
        page: z.number().int().min(1).optional(),
        time: z.tuple([z.number().min(0), z.number().min(0)]).optional(),
        max_chars: z.number().int().min(100).max(200_000).optional().describe('size cap (default 20000)'),
      },
      outputSchema: SpanSchema,
    },
    async (a) =>
      reply(
        await guarded(async () => {
          const base = a.uri ?? a.doc_id;
          if (!base) throw new KbError('INVALID_ARGUMENT', 'give uri, or doc_id (with lines, page or time)');
          const frag = a.lines
            ? `#L${a.lines[0]}-L${a.lines[1]}`
            : a.page
              ? `#page=${a.page}`
              : a.time
                ? `#t=${a.time[0]},${a.time[1]}`
                : '';
          return kb.get({ target: frag && !base.includes('#') ? base + frag : base, ...(a.max_chars ? { max_chars: a.max_chars } : {}) });
        }),
      ),
  );

  server.registerTool(
    'ask',
    {
      title: 'Answer from the documents',
      description:
        'A grounded answer from the local Ollama model with inline [n] citations, or a refusal when the documents hold too little. Without Ollama, llm.status is unavailable and sources still lists the evidence.',
      inputSchema: { question: z.string().min(1), top: z.number().int().min(1).max(50).optional() },
      outputSchema: AskResultSchema,
    },
    async (a) => reply(await guarded(() => kb.ask({ question: a.question, ...(a.top ? { top: a.top } : {}) }))),
  );

  server.registerTool(
    'status',
    {
      title: 'Index status',
      description: 'Collections, document and chunk counts, and which models (embedding, speech, Ollama) are there.',
      inputSchema: {},
      outputSchema: KbStatusSchema,
    },
    async () => reply(await guarded(() => kb['index.status']({}))),
  );
  return server;
}

/** Serves MCP on stdin/stdout until the client closes it. */
export async function serveMcp(kb: KbClient, version: string): Promise<void> {
  const server = mcpServer(kb, version);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
  await server.connect(transport);
  await closed;
}
