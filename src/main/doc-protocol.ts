// The kb-doc: protocol: `kb-doc://doc/<document id>` answers with that indexed document's bytes and
// nothing else. The URL's host must be `doc` and its path exactly one document id; the file is the
// engine's record for that id (see shared/doc-serving.ts), so no URL can name a path on disk.
import type { DocumentSource } from '../shared/wire.js';
import { open, stat } from 'node:fs/promises';
import { serveDocument, type DocFiles } from '../shared/doc-serving.js';

export const DOC_SCHEME = 'kb-doc';

export function docUrl(docId: string): string {
  return `${DOC_SCHEME}://doc/${docId}`;
}

/** A handler for Electron's protocol.handle(DOC_SCHEME, …), built on the Fetch API's Request/Response. */
export function docProtocolHandler(
  lookup: (id: string) => Promise<DocumentSource>,
  files: DocFiles = diskFiles,
): (req: Request) => Promise<Response> {
  return async (req) => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch {
      return new Response(null, { status: 400 });
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return new Response(null, { status: 405 });
    const id = url.pathname.slice(1);
    if (url.protocol !== `${DOC_SCHEME}:` || url.host !== 'doc' || url.search || id.includes('/')) return new Response(null, { status: 404 });
    const reply = await serveDocument(id, lookup, files, req.headers.get('range'));
    return new Response(req.method === 'HEAD' ? null : (reply.body as ConstructorParameters<typeof Response>[0]), { status: reply.status, headers: reply.headers });
  };
}

/** Reads documents from disk for serveDocument: only the bytes asked for. */
export const diskFiles: DocFiles = {
  size: async (file) => (await stat(file)).size,
  read: async (file, start, end) => {
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(end - start + 1);
      const { bytesRead } = await fh.read(buf, 0, buf.length, start);
      return buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  },
};
