// A page's WebSocket to kb serve, as a test drives it: numbered calls, their progress and answers,
// and raw frames for the malformed cases.
import WebSocket from 'ws';

export interface Client {
  call: (
    method: string,
    params: unknown,
    onProgress?: (d: unknown) => void,
  ) => Promise<{ result?: unknown; error?: { code: string; message: string } }>;
  raw: (text: string) => Promise<unknown>;
  close: () => void;
  /** Every event the server pushed, in order. */
  events: { event: string; data: unknown }[];
  /** How the server closed the connection. */
  closed: Promise<{ code: number; reason: string }>;
}

export function connect(port: number, token: string, origin = `http://127.0.0.1:${port}`): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, { origin });
    ws.on('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
    ws.on('error', reject);
    const waiting = new Map<
      number,
      {
        resolve: (m: { result?: unknown; error?: { code: string; message: string } }) => void;
        onProgress?: ((d: unknown) => void) | undefined;
      }
    >();
    let next = 1;
    let rawWaiter: ((m: unknown) => void) | null = null;
    const events: { event: string; data: unknown }[] = [];
    const closed = new Promise<{ code: number; reason: string }>((res) =>
      ws.on('close', (code, reason) => {
        // A call the closed connection will never answer is answered now.
        for (const w of waiting.values()) w.resolve({ error: { code: 'CLOSED', message: String(reason) } });
        waiting.clear();
        res({ code, reason: String(reason) });
      }),
    );
    ws.on('message', (d) => {
      const m = JSON.parse(String(d)) as {
        type: string;
        id?: number;
        event?: string;
        data?: unknown;
        result?: unknown;
        error?: { code: string; message: string };
      };
      if (m.id === -1 && rawWaiter) return rawWaiter(m);
      if (m.type === 'event' && m.id === undefined && m.event) events.push({ event: m.event, data: m.data });
      const w = m.id === undefined ? undefined : waiting.get(m.id);
      if (!w) return;
      if (m.type === 'event') w.onProgress?.(m.data);
      else {
        waiting.delete(m.id!);
        w.resolve(m);
      }
    });
    ws.on('open', () =>
      resolve({
        call: (method, params, onProgress) =>
          new Promise((res) => {
            const id = next++;
            waiting.set(id, { resolve: res, onProgress });
            ws.send(JSON.stringify({ type: 'request', id, method, params }));
          }),
        raw: (text) =>
          new Promise((res) => {
            rawWaiter = res;
            ws.send(text);
          }),
        close: () => ws.close(),
        events,
        closed,
      }),
    );
  });
}
