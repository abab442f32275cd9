// A transcript's segments → chunks of about half a minute to a minute, cut where a segment ends, each
// citing its stretch of time (#t=start,end, in seconds with one decimal).
import type { ParsedChunk } from '../types.js';
import type { Segment } from '../../audio/whisper-protocol.js';

const tenth = (s: number): number => Math.round(s * 10) / 10;

export function transcriptChunks(segments: Segment[], minS: number, maxS: number, heading = ''): ParsedChunk[] {
  const out: ParsedChunk[] = [];
  let group: Segment[] = [];
  const flush = (): void => {
    const text = group
      .map((s) => s.text.trim())
      .filter(Boolean)
      .join(' ');
    if (text) {
      const start = tenth(group[0]!.start);
      const end = Math.max(tenth(group.at(-1)!.end), start + 0.1);
      out.push({ text, heading, anchor: { kind: 'time', start, end: tenth(end) } });
    }
    group = [];
  };
  for (const s of segments) {
    if (group.length > 0) {
      const span = s.end - group[0]!.start;
      const sofar = group.at(-1)!.end - group[0]!.start;
      // Cut once the chunk is long enough and the last segment ended a sentence, or before it would run too long.
      const sentenceEnd = /[.!?…]["')\]]?$/.test(group.at(-1)!.text.trim());
      if ((sofar >= minS && sentenceEnd) || span > maxS) flush();
    }
    group.push(s);
  }
  flush();
  return out;
}

/** The transcript as kb inspect shows it: one line per segment, with its time. */
export function transcriptText(segments: Segment[]): string {
  const clock = (t: number): string => {
    const h = Math.floor(t / 3600);
    const m = Math.floor((t % 3600) / 60);
    const s = (t % 60).toFixed(1).padStart(4, '0');
    return `${h ? `${h}:${String(m).padStart(2, '0')}` : m}:${s}`;
  };
  return segments.map((s) => `[${clock(s.start)}–${clock(s.end)}] ${s.text.trim()}`).join('\n');
}
