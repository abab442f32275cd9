// kb for LLM tools: `kb mcp` spoken to by a real MCP client over stdio, and `kb get`.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { KbStatusSchema, SearchResultSchema, SpanSchema } from '../src/shared/wire.js';
import { kb, repoRoot, tempDir, writeTree } from './helpers.js';

const NOTES = {
  'notes/setup.md':
    '# Setup\n\n## Linux\n\nInstall git with apt-get install git.\nThen run git config.\n\n## Windows\n\nUse the installer.\n',
  'notes/other.md': '# Other\n\nNothing about version control here, only gardening.\n',
};

describe('kb get', () => {
  it('prints the cited lines of a file, by path or URI; a bad span is a clear error', async () => {
    const dir = await tempDir();
    await writeTree(dir, NOTES);
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') };
    expect(kb(['ingest', join(dir, 'notes')], { env }).code).toBe(0);
    const file = join(dir, 'notes/setup.md');
    const human = kb(['get', `${file}#L5-L6`], { env });
    expect(human.stdout).toBe('setup.md · L5–6\nInstall git with apt-get install git.\nThen run git config.\n');
    const hit = (kb(['search', 'apt-get', '--json'], { env }).json() as { results: { citation: { uri: string } }[] }).results[0]!;
    const byUri = SpanSchema.parse(kb(['get', hit.citation.uri, '--json'], { env }).json());
    expect(byUri.text).toMatch(/Install git with apt-get install git\./);
    expect(byUri.citation.uri).toBe(hit.citation.uri);
    expect(kb(['get', `${file}#page=2`], { env }).stderr).toMatch(/has lines: ask for #L12-L34/);
    expect(kb(['get', `${file}#nonsense`], { env }).stderr).toMatch(/is not a span kb knows/);
    expect(kb(['get', join(dir, 'nope.md')], { env }).stderr).toMatch(/is not indexed/);
    const capped = SpanSchema.parse(kb(['get', file, '--max', '100', '--json'], { env }).json());
    expect(capped).toMatchObject({ truncated: true });
    expect(capped.text).toHaveLength(100);
  });
});

describe('kb mcp', () => {
  it('initializes, lists its tools with schemas, searches, reads a span, reports status, and errors clearly', async () => {
    const dir = await tempDir();
    await writeTree(dir, NOTES);
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') };
    expect(kb(['ingest', join(dir, 'notes')], { env }).code).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(repoRoot, 'bin/kb.js'), 'mcp'],
      env: { ...(process.env as Record<string, string>), ...env, KB_OLLAMA_HOST: 'http://127.0.0.1:1' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'kb-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('kb');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['ask', 'get', 'search', 'status']);
      const search = tools.find((t) => t.name === 'search')!;
      expect(search.inputSchema).toMatchObject({
        type: 'object',
        required: ['query'],
        properties: { query: { type: 'string' }, top: { type: 'integer' } },
      });
      expect(search.outputSchema).toMatchObject({ type: 'object' });

      const r = await client.callTool({ name: 'search', arguments: { query: 'install git', top: 3 } });
      const result = SearchResultSchema.parse(r.structuredContent);
      expect(result.results[0]!.citation.uri).toMatch(/setup\.md#L\d+-L\d+$/);
      expect(JSON.parse((r.content as { text: string }[])[0]!.text)).toEqual(r.structuredContent);

      const span = SpanSchema.parse(
        (await client.callTool({ name: 'get', arguments: { uri: result.results[0]!.citation.uri } })).structuredContent,
      );
      expect(span.text).toMatch(/apt-get install git/);
      const byId = SpanSchema.parse(
        (await client.callTool({ name: 'get', arguments: { doc_id: result.results[0]!.doc_id, lines: [5, 5] } })).structuredContent,
      );
      expect(byId.text).toBe('Install git with apt-get install git.');

      const status = KbStatusSchema.parse((await client.callTool({ name: 'status', arguments: {} })).structuredContent);
      expect(status).toMatchObject({ documents: 2, embedding: { installed: false }, llm: { status: 'warn' } });

      // The search tool takes what every other way to search takes (wire.ts), limits included.
      expect(search.inputSchema.properties).toMatchObject({
        top: { maximum: 200 },
        prefix: { type: 'boolean' },
        threshold: { type: 'number' },
      });
      const prefixed = SearchResultSchema.parse(
        (await client.callTool({ name: 'search', arguments: { query: 'instal', prefix: true, top: 200 } })).structuredContent,
      );
      expect(prefixed.results[0]!.citation.uri).toMatch(/setup\.md#L/);

      // Bad input: an InvalidParams error (-32602) naming what is wrong, never a result or an internal error.
      const failure = async (name: string, args: Record<string, unknown>): Promise<string> => {
        const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
        expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
        return r.content[0]!.text;
      };
      expect(await failure('get', { uri: 'file:///nowhere/x.md#L1-L2' })).toMatch(
        /^MCP error -32602: NOT_FOUND: \/nowhere\/x\.md is not indexed/,
      );
      expect(await failure('get', {})).toMatch(/^MCP error -32602: INVALID_ARGUMENT: give uri, or doc_id/);
      expect(await failure('search', { top: 'many' })).toMatch(/^MCP error -32602: .*query[\s\S]*top/);
      expect(await failure('search', { query: 'git', top: 5000 })).toMatch(/^MCP error -32602: .*top/);
    } finally {
      await client.close();
    }
  }, 60_000);
});
