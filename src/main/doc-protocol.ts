// The kb-doc: protocol: `kb-doc://doc/<document id>` answers with that indexed document's bytes and
// nothing else. The URL's host must be `doc` and its path exactly one document id; the file is the
// engine's record for that id (see shared/doc-serving.ts), so no URL can name a path on disk.
import { DOC_ID_CHARS } from '../shared/doc-id.js';
import type { DocumentSource } from '../shared/wire.js';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { serveDocument, serveDocumentView } from '../shared/doc-serving.js';

/** kb-doc://doc/<id>/view: a structured document rendered at a citation. */
const VIEW_PATH = new RegExp(`^/(${DOC_ID_CHARS})/view$`);

export const DOC_SCHEME = 'kb-doc';

export function docUrl(docId: string): string {
  return `${DOC_SCHEME}://doc/${docId}`;
}

/** A handler for Electron's protocol.handle(DOC_SCHEME, …), built on the Fetch API's Request/Response. */
export function docProtocolHandler(
  lookup: (id: string) => Promise<DocumentSource>,
  view?: (id: string, at: string | undefined, q: string | undefined) => Promise<{ html: string; stale: boolean }>,
): (req: Request) => Promise<Response> {
  return async (req) => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return new Response(null, { status: 400 });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return new Response(null, { status: 405 });
    // kb-doc://doc/<id>/view?at=<fragment>: a structured document rendered at a citation.
    const viewMatch = VIEW_PATH.exec(url.pathname);
    if (viewMatch && view && url.protocol === `${DOC_SCHEME}:` && url.host === 'doc') {
      const reply = await serveDocumentView(viewMatch[1]!, url.searchParams.get('at'), view, url.searchParams.get('q'));
      return new Response(req.method === 'HEAD' ? null : reply.html, { status: reply.status, headers: reply.headers });
    }
    const id = url.pathname.slice(1);
    if (url.protocol !== `${DOC_SCHEME}:` || url.host !== 'doc' || url.search || id.includes('/'))
      return new Response(null, { status: 404 });
    const reply = await serveDocument(id, lookup, async (file) => (await stat(file)).size, req.headers.get('range'));
    const body =
      req.method === 'HEAD' || !reply.body
        ? null
        : (Readable.toWeb(
            createReadStream(reply.body.file, { start: reply.body.start, end: reply.body.end }),
          ) as ReadableStream<Uint8Array>);
    return new Response(body, { status: reply.status, headers: reply.headers });
  };
}
