// Speech models: whisper.cpp's ggml files, from the Hugging Face repo ggerganov/whisper.cpp. A file is
// checked before it is ever loaded (whisper.cpp crashes on a bad one): the ggml magic, hyperparameters
// a real model has, and a size that fits them (a truncated download fails here); at install, the
// checksum published for that model too.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { formatBytes } from '../../shared/bytes.js';

export interface WhisperSpec {
  name: string;
  /** The file in ggerganov/whisper.cpp. */
  file: string;
  /** SHA-1 as whisper.cpp's models/README.md publishes it. */
  sha1: string;
  languages: 'en' | 'multilingual';
  about: string;
}

export const WHISPER_REPO = 'ggerganov/whisper.cpp';

export const WHISPER_MODELS: WhisperSpec[] = [
  {
    name: 'whisper-tiny.en',
    file: 'ggml-tiny.en.bin',
    sha1: 'c78c86eb1a8faa21b369bcd33207cc90d64ae9df',
    languages: 'en',
    about: '78 MB, fastest, English',
  },
  {
    name: 'whisper-tiny',
    file: 'ggml-tiny.bin',
    sha1: 'bd577a113a864445d4c299885e0cb97d4ba92b5f',
    languages: 'multilingual',
    about: '78 MB, fastest, 99 languages',
  },
  {
    name: 'whisper-base.en',
    file: 'ggml-base.en.bin',
    sha1: '137c40403d78fd54d454da0f9bd998f78703390c',
    languages: 'en',
    about: '148 MB, the default, English',
  },
  {
    name: 'whisper-base',
    file: 'ggml-base.bin',
    sha1: '465707469ff3a37a2b9b8d8f89f2f99de7299dac',
    languages: 'multilingual',
    about: '148 MB, 99 languages',
  },
  {
    name: 'whisper-small.en',
    file: 'ggml-small.en.bin',
    sha1: 'db8a495a91d927739e50b3fc1cc4c6b8f6c2d022',
    languages: 'en',
    about: '488 MB, more accurate, English',
  },
  {
    name: 'whisper-small',
    file: 'ggml-small.bin',
    sha1: '55356645c2b361a969dfd0ef2c5a50d530afd8d5',
    languages: 'multilingual',
    about: '488 MB, more accurate, 99 languages',
  },
  {
    name: 'whisper-medium',
    file: 'ggml-medium.bin',
    sha1: 'fd9727b6e1217c2f614f9b698455c4ffd82463b4',
    languages: 'multilingual',
    about: '1.5 GB, accurate, slow on a laptop',
  },
];

/** Where an installed speech model lives: <data dir>/models/whisper/<name>.bin. */
export function whisperModelFile(dataDir: string, name: string): string {
  return join(dataDir, 'models', 'whisper', `${name}.bin`);
}

export function whisperSpec(name: string): WhisperSpec | undefined {
  return WHISPER_MODELS.find((m) => m.name === name);
}

/** 'ggml' as whisper.cpp writes it: the uint32 0x67676d6c, little-endian. */
const GGML_MAGIC = 0x67676d6c;

export interface WhisperHeader {
  n_vocab: number;
  n_audio_state: number;
  n_audio_layer: number;
  n_text_state: number;
  n_text_layer: number;
  n_mels: number;
  ftype: number;
}

/** Bytes per weight for whisper.cpp's ftypes (f32, f16, q4_0, q4_1, …, q8_0, q5_0, q5_1). */
const BYTES_PER_WEIGHT: Record<number, number> = { 0: 4, 1: 2, 2: 0.5625, 3: 0.625, 7: 1.0625, 8: 0.6875, 9: 0.75 };

/** Roughly how many weights a model of this shape has (attention and MLP blocks, embeddings). */
function weights(h: WhisperHeader): number {
  const enc = h.n_audio_layer * 12 * h.n_audio_state ** 2;
  const dec = h.n_text_layer * 16 * h.n_text_state ** 2;
  return enc + dec + h.n_vocab * h.n_text_state;
}

/** The smallest file a model with this header can be: half the weights' size, so only truncation falls below. */
export function minimumBytes(h: WhisperHeader): number {
  return Math.floor(0.5 * weights(h) * (BYTES_PER_WEIGHT[h.ftype % 1000] ?? 0.5));
}

/**
 * Checks a file is a whole whisper.cpp model before anything loads it. Throws MODEL_INVALID, saying
 * what is wrong: not a ggml file, implausible hyperparameters, or too small for them (truncated).
 */
export async function validateWhisperFile(path: string): Promise<WhisperHeader> {
  let size: number;
  const head = Buffer.alloc(48);
  try {
    size = (await stat(path)).size;
    const fh = await open(path, 'r');
    try {
      await fh.read(head, 0, head.length, 0);
    } finally {
      await fh.close();
    }
  } catch (e) {
    throw new KbError('MODEL_MISSING', `no speech model file at ${path}: ${(e as Error).message}`);
  }
  if (size < head.length || head.readUInt32LE(0) !== GGML_MAGIC)
    throw new KbError('MODEL_INVALID', `${path} is not a whisper.cpp model (no ggml header)`);
  const i = (k: number): number => head.readInt32LE(4 + 4 * k);
  const h: WhisperHeader = {
    n_vocab: i(0),
    n_audio_state: i(2),
    n_audio_layer: i(4),
    n_text_state: i(6),
    n_text_layer: i(8),
    n_mels: i(9),
    ftype: i(10),
  };
  const plausible =
    h.n_vocab >= 51_864 &&
    h.n_vocab <= 51_866 &&
    i(1) === 1500 &&
    (h.n_mels === 80 || h.n_mels === 128) &&
    [h.n_audio_state, h.n_text_state].every((s) => s >= 64 && s <= 4096 && s % 64 === 0) &&
    [h.n_audio_layer, h.n_text_layer].every((l) => l >= 1 && l <= 64);
  if (!plausible) throw new KbError('MODEL_INVALID', `${path} has a ggml header, but not the shape of a whisper model`);
  const need = minimumBytes(h);
  if (size < need) {
    throw new KbError(
      'MODEL_INVALID',
      `${path} is ${formatBytes(size)}, but a model of its shape needs at least ${formatBytes(need)}: the file is truncated (download it again)`,
    );
  }
  return h;
}

export async function sha1Of(path: string): Promise<string> {
  const h = createHash('sha1');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}
