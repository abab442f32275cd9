// Searches come first: an ingest's passage embedding waits for a moment with no search in flight,
// and no longer than its bound while searches keep coming.
import { describe, expect, it } from 'vitest';
import { pauseForSearches, searchCounter, searchesAhead, searchesQuiet, searching } from '../src/worker/search-traffic.js';

const later = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('search traffic', () => {
  it('holds an embedding batch while a search is in flight, and lets it go when the last one ends', async () => {
    await searchesQuiet(0); // nothing in flight: at once
    let end: () => void = () => undefined;
    const first = searching(() => new Promise<void>((r) => (end = r)));
    const second = searching(() => later(30));
    let quiet = false;
    const waited = searchesQuiet(60_000).then(() => (quiet = true));
    await second;
    await later(20);
    expect(quiet).toBe(false); // one search still runs
    end();
    await first;
    await waited;
    expect(quiet).toBe(true);
  });

  it('waits no longer than its bound while searches keep coming', async () => {
    let end: () => void = () => undefined;
    const busy = searching(() => new Promise<void>((r) => (end = r)));
    let quiet = false;
    await searchesQuiet(50).then(() => (quiet = true));
    expect(quiet).toBe(true);
    end();
    await busy;
  });

  it('counts a failed search as ended', async () => {
    await expect(searching(() => Promise.reject(new Error('bad query')))).rejects.toThrow('bad query');
    let quiet = false;
    await searchesQuiet(60_000).then(() => (quiet = true));
    expect(quiet).toBe(true);
  });

  it("lets an ingest's write wait for the searches ahead of it, not for those that come after", async () => {
    expect(searchesAhead()).toBeUndefined(); // nothing in flight: no wait at all
    let endFirst: () => void = () => undefined;
    const first = searching(() => new Promise<void>((r) => (endFirst = r)));
    let went = false;
    const write = searchesAhead(60_000)!.then(() => (went = true));
    let endSecond: () => void = () => undefined;
    const second = searching(() => new Promise<void>((r) => (endSecond = r)));
    await later(10);
    expect(went).toBe(false);
    endFirst();
    await first;
    await write;
    expect(went).toBe(true); // the second search still runs: it came after
    endSecond();
    await second;
  });

  it('lets the write go after its bound behind a search that does not end', async () => {
    let end: () => void = () => undefined;
    const stuck = searching(() => new Promise<void>((r) => (end = r)));
    const t = performance.now();
    await searchesAhead(40);
    expect(performance.now() - t).toBeGreaterThanOrEqual(35);
    end();
    await stuck;
  });

  it('lets another thread pause between its runs while a search is in flight, through the shared count', async () => {
    const shared = searchCounter();
    await pauseForSearches(shared, 60_000); // none in flight: at once
    let end: () => void = () => undefined;
    const busy = searching(() => new Promise<void>((r) => (end = r)));
    expect(Atomics.load(shared, 0)).toBe(1);
    let resumed = false;
    const paused = pauseForSearches(shared, 60_000).then(() => (resumed = true));
    await later(20);
    expect(resumed).toBe(false);
    end();
    await busy;
    await paused;
    expect(resumed).toBe(true);
    expect(Atomics.load(shared, 0)).toBe(0);
    // A search that never ends holds the thread no longer than the bound.
    const stuck = searching(() => new Promise<void>((r) => (end = r)));
    await pauseForSearches(shared, 30);
    end();
    await stuck;
  });
});
