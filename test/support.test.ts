// The test support itself: a test that needs the corpora fails in CI instead of skipping green.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { corporaDir, repoRoot } from './helpers.js';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe('the corpora the tests read', () => {
  it('are an error when missing under KB_REQUIRE_CORPORA=1, which CI sets; else a skip', () => {
    process.env.KB_CORPORA = join(repoRoot, 'no-such-corpora');
    process.env.KB_REQUIRE_CORPORA = '1';
    expect(() => corporaDir()).toThrow(/KB_REQUIRE_CORPORA=1, but the corpora are not at .*no-such-corpora/);
    delete process.env.KB_REQUIRE_CORPORA;
    expect(corporaDir()).toBeNull();
    const ci = readFileSync(join(repoRoot, '.ci/run'), 'utf8');
    expect(ci.indexOf('export KB_REQUIRE_CORPORA=1')).toBeGreaterThan(-1);
    expect(ci.indexOf('export KB_REQUIRE_CORPORA=1')).toBeLessThan(ci.indexOf('\nnpm test'));
  });
});
