// A stand-in for the Hugging Face hub on 127.0.0.1 (no hub can be reached here): serves one model
// folder as every repo, the way the hub lays files out (/<org>/<repo>/resolve/<rev>/<file>), with HTTP
// Range for resumed downloads, optionally slowly (to watch progress and cancel a pull), and with the
// faults a test asks for: a download broken off, other bytes, a file missing.
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface HubBehaviour {
  /** Break the next download of this file after so many bytes. */
  breakAfter?: { file: string; bytes: number };
  /** Serve these bytes for this file. */
  override?: { file: string; body: Buffer };
  /** Answer 404 for this file. */
  missing?: string;
}

export interface HubStub {
  url: string;
  /** Every request: path and Range header. */
  requests: { path: string; range: string | undefined }[];
  /** Faults for the next requests; a test sets and clears them. */
  behaviour: HubBehaviour;
  close(): Promise<void>;
}

/** The bytes the hub has for a file of the repo: the folder's one ONNX model for any .onnx, a stand-in for whisper's .bin when asked. */
function fileBody(modelDir: string, file: string, b: HubBehaviour, speechBytes: number): Buffer | null {
  if (file === b.missing) return null;
  if (b.override?.file === file) return b.override.body;
  const local = file.endsWith('.onnx') ? join(modelDir, 'onnx', 'model.onnx') : join(modelDir, file);
  if (existsSync(local)) return readFileSync(local);
  return file.endsWith('.bin') && speechBytes > 0 ? Buffer.alloc(speechBytes, 1) : null;
}

/**
 * `bytesPerSecond`: send every file at this rate, in 16 KB pieces (default: at once). `speechModelBytes`:
 * answer a whisper .bin with that many bytes (not a real model: for progress and Cancel; default 404).
 */
export async function startHubStub(modelDir: string, opts: { bytesPerSecond?: number; speechModelBytes?: number } = {}): Promise<HubStub> {
  const requests: HubStub['requests'] = [];
  const behaviour: HubBehaviour = {};
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', range: req.headers.range });
    const file = req.url?.match(/^\/[^/]+\/[^/]+\/resolve\/[^/]+\/(.+)$/)?.[1];
    const body = file ? fileBody(modelDir, file, behaviour, opts.speechModelBytes ?? 0) : null;
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
    const broken = behaviour.breakAfter;
    if (broken && broken.file === file) {
      const cut = broken.bytes;
      behaviour.breakAfter = undefined;
      res.write(slice.subarray(0, cut), () => res.destroy());
      return;
    }
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
    behaviour,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
