// A stand-in for the Hugging Face hub on 127.0.0.1 (no hub can be reached here): serves one model
// folder as every repo, the way the hub lays files out (/<org>/<repo>/resolve/<rev>/<file>), with HTTP
// Range for resumed downloads, and optionally slowly (to watch progress and cancel a pull).
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface HubStub {
  url: string;
  /** Every request: path and Range header. */
  requests: { path: string; range: string | undefined }[];
  close(): Promise<void>;
}

/** `bytesPerSecond`: send every file at this rate, in 16 KB pieces (default: at once). */
export async function startHubStub(modelDir: string, opts: { bytesPerSecond?: number } = {}): Promise<HubStub> {
  const requests: HubStub['requests'] = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', range: req.headers.range });
    const file = req.url?.match(/^\/[^/]+\/[^/]+\/resolve\/[^/]+\/(.+)$/)?.[1];
    // Any ONNX file asked for is the folder's one model; whisper's .bin files are a large stand-in.
    const local = !file ? null : file.endsWith('.onnx') ? join(modelDir, 'onnx', 'model.onnx') : join(modelDir, file);
    const body = local && existsSync(local) ? readFileSync(local) : file?.endsWith('.bin') ? Buffer.alloc(50 * 1024 * 1024, 1) : null;
    if (!body) {
      res.writeHead(404).end('not found');
      return;
    }
    const range = req.headers.range?.match(/^bytes=(\d+)-$/);
    const start = range ? Number(range[1]) : 0;
    const slice = body.subarray(start);
    res.writeHead(range ? 206 : 200, {
      'content-length': String(slice.length),
      ...(range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
    });
    if (!opts.bytesPerSecond) {
      res.end(slice);
      return;
    }
    const piece = 16 * 1024;
    let at = 0;
    const timer = setInterval(
      () => {
        if (res.destroyed || at >= slice.length) {
          clearInterval(timer);
          res.end();
          return;
        }
        res.write(slice.subarray(at, at + piece));
        at += piece;
      },
      Math.max(1, Math.round((piece / opts.bytesPerSecond) * 1000)),
    );
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
