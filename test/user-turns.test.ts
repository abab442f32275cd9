// Each person's share of kb serve (cli/serve/user-turns.ts): at most IN_FLIGHT of one person's
// requests at the engine, the rest waiting in order; another person's go straight through; long calls
// take no turn; a waiting call cancelled is never sent; past WAITING one is refused, never kept.
import { describe, expect, it } from 'vitest';
import type { Caller, Method, Params, Result } from '../src/shared/api.js';
import { IN_FLIGHT, UserTurns, WAITING } from '../src/cli/serve/user-turns.js';

/** An engine that answers when told to, recording what reached it. */
class Engine {
  sent: string[] = [];
  cancelled: number[] = [];
  private readonly answers = new Map<number, () => void>();
  private next = 1;
  request<M extends Method>(
    method: M,
    params: Params<M>,
    _o?: (d: unknown) => void,
    _c?: Caller,
  ): { id: number; result: Promise<Result<M>> } {
    const id = this.next++;
    this.sent.push(`${method}:${JSON.stringify(params)}`);
    return { id, result: new Promise<Result<M>>((res) => this.answers.set(id, () => res({} as Result<M>))) };
  }
  cancel(id: number): void {
    this.cancelled.push(id);
  }
  answer(id: number): void {
    this.answers.get(id)?.();
  }
}

const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('user turns', () => {
  it("keeps one person's requests at the engine to IN_FLIGHT, in order, and lets another's straight through", async () => {
    const engine = new Engine();
    const turns = new UserTurns(engine);
    const bob = turns.for('token:bob');
    const frank = turns.for('token:frank');
    for (let i = 0; i < IN_FLIGHT + 3; i++) void bob.request('search', { query: `b${i}` }).result;
    expect(engine.sent).toHaveLength(IN_FLIGHT);
    void frank.request('search', { query: 'f' }).result;
    expect(engine.sent.at(-1)).toBe('search:{"query":"f"}');
    // An ingest reports progress: it takes no turn.
    void bob.request('ingest', { paths: ['/x'] }).result;
    expect(engine.sent.at(-1)).toBe('ingest:{"paths":["/x"]}');
    engine.answer(1);
    await settle();
    expect(engine.sent.at(-1)).toBe(`search:{"query":"b${IN_FLIGHT}"}`);
  });

  it('never sends a waiting call that was cancelled, forwards the cancel of a running one, and refuses past WAITING', async () => {
    const engine = new Engine();
    const bob = new UserTurns(engine).for('');
    const running = bob.request('search', { query: 'r' });
    for (let i = 1; i < IN_FLIGHT; i++) void bob.request('search', { query: `r${i}` }).result;
    const waiting = bob.request('search', { query: 'w' });
    bob.cancel(waiting.id);
    await expect(waiting.result).rejects.toMatchObject({ code: 'CANCELLED' });
    bob.cancel(running.id);
    expect(engine.cancelled).toEqual([1]);
    const queued = Array.from({ length: WAITING }, (_, i) => bob.request('search', { query: `q${i}` }).result);
    queued.forEach((q) => q.catch(() => undefined));
    await expect(bob.request('search', { query: 'one too many' }).result).rejects.toMatchObject({ code: 'BUSY' });
    engine.answer(1);
    await settle();
    expect(engine.sent.filter((s) => s.includes('"w"'))).toEqual([]);
    expect(engine.sent.at(-1)).toBe('search:{"query":"q0"}');
  });
});
