// Searches come first: an ingest's passage embedding waits for a moment with no search in flight,
// and no longer than its bound while searches keep coming.
import { describe, expect, it } from 'vitest';
import { searchesQuiet, searching } from '../src/worker/search-traffic.js';

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
});
