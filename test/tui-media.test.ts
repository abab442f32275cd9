// kb tui's preview of citations that are not lines: an image's OCR text (tesseract.js on a real
// scan from ../shared/corpora) and a recording's transcript with its timestamps (ffmpeg decodes the
// real file; a transcriber double hears known words, as in audio.test.ts: no whisper weights here).
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { TuiApp } from '../src/cli/tui/App.js';
import { SAMPLE_RATE, findFfmpeg } from '../src/worker/audio/decode.js';
import type { Segment, Transcriber } from '../src/worker/audio/transcriber.js';
import type { Engine } from '../src/worker/index.js';
import { corporaDir, engineIn, tempDir } from './helpers.js';

const corpora = corporaDir();
let hasFfmpeg = true;
try {
  findFfmpeg('');
} catch {
  hasFfmpeg = false;
}

function tui(engine: Engine, query: string) {
  const app = render(
    createElement(TuiApp, {
      search: (p) => engine.search(p),
      get: (t) => engine.get(t, 20_000),
      run: async () => undefined,
      copy: () => undefined,
      editor: 'vim',
      initialQuery: query,
    }),
  );
  return { app, frame: (): string => app.lastFrame() ?? '' };
}

describe.skipIf(!corpora)('kb tui previews an image', () => {
  it('shows the OCR text of the cited region, the passage marked', async () => {
    const engine = await engineIn();
    await engine.ingest([join(corpora!, 'images', 'tesseract.js', 'testocr.png')]);
    const t = tui(engine, 'quick brown dog lazy fox');
    await expect.poll(t.frame, { timeout: 10_000 }).toMatch(/› testocr.*\(image\)/);
    const hit = (await engine.search({ query: 'quick brown dog lazy fox', top: 1 })).results[0]!;
    expect(hit.citation.kind).toBe('region');
    // The preview's title is the region's label; its text is what OCR read there, marked.
    await expect.poll(t.frame).toMatch(new RegExp(`${hit.citation.label!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    await expect.poll(t.frame).toMatch(/▌.*(The quick brown dog jumped|over the lazy fox)/);
    t.app.unmount();
  }, 60_000);
});

describe.skipIf(!corpora || !hasFfmpeg)('kb tui previews a recording', () => {
  it('shows the transcript of the cited stretch, each line with its time, the passage marked', async () => {
    const dir = await tempDir();
    copyFileSync(join(corpora!, 'audio', 'bernie30s.wav'), join(dir, 'talk.wav'));
    const transcriber = (): Transcriber => ({
      transcribe: async (pcm) => {
        const segments: Segment[] = [];
        for (let s = 0; s < pcm.length / SAMPLE_RATE; s += 4) segments.push({ start: s, end: s + 4, text: `walrus words part ${s}.` });
        return { segments, language: 'en' };
      },
      close: () => undefined,
    });
    // Chunks of 8–12 s, so the hit cites a stretch of the recording, not all of it.
    const engine = await engineIn(join(dir, 'data'), { audio: { window_s: 30, chunk_min_s: 8, chunk_max_s: 12 } }, { transcriber });
    await engine.ingest([join(dir, 'talk.wav')]);
    await engine.transcribePending();
    const t = tui(engine, 'walrus part 24');
    await expect.poll(t.frame, { timeout: 10_000 }).toMatch(/› talk.*\(audio\)/);
    const hit = (await engine.search({ query: 'walrus part 24', top: 1 })).results[0]!;
    expect(hit.citation).toMatchObject({ kind: 'time', start: 24 });
    await expect.poll(t.frame).toMatch(/talk\.wav · 0:24–0:30/);
    // The transcript around it, each line with its time; the cited stretch marked, the rest not.
    await expect.poll(t.frame).toMatch(/▌\[0:24\.0–0:28\.0\] walrus words part 24\./);
    expect(t.frame()).toMatch(/▌\[0:28\.0–0:3\d\.0\] walrus words part 28\./);
    expect(t.frame()).toMatch(/ \[0:20\.0–0:24\.0\] walrus words part 20\./);
    expect(t.frame()).toMatch(/ \[0:00\.0–0:04\.0\] walrus words part 0\./);
    t.app.unmount();
  }, 60_000);
});
