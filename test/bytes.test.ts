import { describe, expect, it } from 'vitest';
import { formatBytes } from '../src/shared/bytes.js';

describe('sizes for people', () => {
  it('are decimal, as downloads and file managers give them: an 80,000,000-byte model is 80.0 MB, not 76.3', () => {
    expect(formatBytes(80_000_000)).toBe('80.0 MB');
    expect(formatBytes(90_868_376)).toBe('90.9 MB');
    expect(formatBytes(23_400_000)).toBe('23.4 MB');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1500)).toBe('1.5 KB');
    expect(formatBytes(4_300_000_000)).toBe('4.3 GB');
  });

  it('never prints 1000 of a unit: it carries to the next', () => {
    expect(formatBytes(999_960)).toBe('1.0 MB');
    expect(formatBytes(438_000_000)).toBe('438 MB');
    expect(formatBytes(999_400)).toBe('999 KB');
  });
});
