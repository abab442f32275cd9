// OCR with tesseract.js, from local language data only: it never reaches a CDN. tesseract.js runs
// recognition on a worker thread of its own, so the engine's thread only posts images to it.
// Language data comes from ocr.lang_path, the @tesseract.js-data/<code> packages, or Debian's
// tesseract-ocr-<code> (in that order), and is unpacked once into <data dir>/ocr/.
import { SCRIPT_LANGUAGE, SCRIPT_SURE, type ScriptGuess } from './scripts.js';
import { createReadStream, createWriteStream, existsSync, readdirSync } from 'node:fs';
import { copyFile, mkdir, rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type * as Tesseract from 'tesseract.js';
import type { Config } from '../../../shared/config.js';
import { KbError } from '../../../shared/errors.js';
import { assetPath } from '../../threads.js';

export interface OcrBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface OcrParagraph {
  text: string;
  bbox: OcrBox;
  /** 0–100, as tesseract reports it. */
  confidence: number;
}

export interface OcrResult {
  text: string;
  confidence: number;
  paragraphs: OcrParagraph[];
}

type TesseractWorker = Awaited<ReturnType<typeof Tesseract.createWorker>>;

/** Tesseract writes notes ("Too few characters", "Invalid resolution") to stderr; they mean nothing to users. */
// tesseract.js types list only some init parameters; it passes any of them on.
const QUIET = { debug_file: '/dev/null' } as unknown as Partial<Tesseract.InitOptions>;

/** tesseract's worker thread with its console silenced (libpng and leptonica print to the terminal). */
const quietThread = assetPath('ingest/ocr/ocr-thread.cjs');
const QUIET_THREAD = quietThread ? { workerPath: quietThread } : {};

const SYSTEM_TESSDATA = ['/usr/share/tesseract-ocr/5/tessdata', '/usr/share/tesseract-ocr/4.00/tessdata', '/usr/share/tessdata'];

/** Where <code>.traineddata(.gz) is, or a clear error saying how to get it. */
function findLanguage(code: string, langPath: string | undefined): string {
  const candidates: string[] = [];
  if (langPath) candidates.push(join(langPath, `${code}.traineddata`), join(langPath, `${code}.traineddata.gz`));
  try {
    const pkg = dirname(createRequire(import.meta.url).resolve(`@tesseract.js-data/${code}/package.json`));
    candidates.push(join(pkg, '4.0.0_best_int', `${code}.traineddata.gz`), join(pkg, '4.0.0', `${code}.traineddata.gz`));
  } catch {
    // not installed as a package
  }
  for (const d of SYSTEM_TESSDATA) candidates.push(join(d, `${code}.traineddata`));
  const found = candidates.find((c) => existsSync(c));
  if (!found) {
    throw new KbError(
      'MODEL_MISSING',
      `no OCR data for language "${code}": run npm install @tesseract.js-data/${code} in the kb folder, ` +
        `install Debian's tesseract-ocr-${code}, or set ocr.lang_path to a folder with ${code}.traineddata`,
    );
  }
  return found;
}

/** The languages with data on this machine: ocr.lang_path, Debian's tessdata, @tesseract.js-data packages. */
export function installedOcrLanguages(langPath: string | undefined): string[] {
  const codes = new Set<string>();
  const scan = (dir: string): void => {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      const m = /^([a-z_]+)\.traineddata(\.gz)?$/i.exec(n);
      if (m && m[1] !== 'osd' && m[1] !== 'equ') codes.add(m[1]!);
    }
  };
  if (langPath) scan(langPath);
  for (const d of SYSTEM_TESSDATA) scan(d);
  try {
    // Any one installed package says where the others are (they sit side by side in node_modules).
    const scope = dirname(dirname(createRequire(import.meta.url).resolve('tesseract.js/package.json')));
    for (const pkg of readdirSync(join(scope, '@tesseract.js-data'))) if (/^[a-z_]+$/.test(pkg) && pkg !== 'osd') codes.add(pkg);
  } catch {
    // no language packages
  }
  return [...codes].sort();
}

/** For doctor: whether every configured language has its data, and where it comes from. */
export function ocrLanguagesStatus(ocr: Config['ocr']): { ok: boolean; detail: string } {
  const found: string[] = [];
  for (const code of ocr.languages.split('+')) {
    try {
      found.push(`${code} (${findLanguage(code, ocr.lang_path)})`);
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  }
  return { ok: true, detail: `language data: ${found.join(', ')}` };
}

/** Every language as plain <code>.traineddata in one folder, the way tesseract.js wants them. */
async function languageFolder(dataDir: string, codes: string[], langPath: string | undefined): Promise<string> {
  const dir = join(dataDir, 'ocr');
  await mkdir(dir, { recursive: true });
  for (const code of codes) {
    const target = join(dir, `${code}.traineddata`);
    if (existsSync(target)) continue;
    const src = findLanguage(code, langPath);
    const tmp = `${target}.${process.pid}.tmp`;
    if (src.endsWith('.gz')) await pipeline(createReadStream(src), createGunzip(), createWriteStream(tmp));
    else await copyFile(src, tmp);
    await rename(tmp, target);
  }
  return dir;
}

export class Ocr {
  /** Orientation detection (tesseract's legacy OSD model), started the first time a page reads badly. */
  private osd?: Promise<TesseractWorker | null>;

  private constructor(
    private readonly worker: TesseractWorker,
    private readonly dataDir: string,
  ) {}

  static async start(ocr: Config['ocr'], dataDir: string): Promise<Ocr> {
    const codes = ocr.languages.split('+');
    const langPath = await languageFolder(dataDir, codes, ocr.lang_path);
    const { createWorker, OEM } = await import('tesseract.js');
    try {
      const worker = await createWorker(
        codes.join('+'),
        OEM.LSTM_ONLY,
        {
          langPath,
          gzip: false,
          cacheMethod: 'none', // never write or fetch a cached copy elsewhere
          logger: () => undefined,
          errorHandler: () => undefined,
          ...QUIET_THREAD,
        },
        QUIET,
      );
      return new Ocr(worker, dataDir);
    } catch (e) {
      throw new KbError('MODEL_INVALID', `tesseract could not load the OCR data in ${langPath}: ${(e as Error).message ?? String(e)}`);
    }
  }

  /** Reads an image (PNG, JPEG, TIFF, BMP…) and returns its paragraphs with boxes in its own pixels. */
  async recognize(image: Uint8Array): Promise<OcrResult> {
    const r = await this.worker.recognize(Buffer.from(image), {}, { text: true, blocks: true }).catch((e: unknown) => {
      // Leptonica could not decode it: a truncated or damaged file, not a fault of kb's.
      const message = e instanceof Error ? e.message : String(e);
      if (/read image|pixRead/i.test(message)) throw new KbError('PARSE_FAILED', 'the image could not be decoded (truncated or damaged?)');
      throw e;
    });
    const paragraphs: OcrParagraph[] = [];
    for (const b of r.data.blocks ?? []) {
      for (const p of b.paragraphs) {
        const text = p.text
          .replace(/\s*\n\s*/g, ' ')
          .replace(/\s+/g, ' ')
          .trim();
        if (text.length > 0) paragraphs.push({ text, bbox: p.bbox, confidence: p.confidence });
      }
    }
    return { text: r.data.text, confidence: r.data.confidence, paragraphs };
  }

  /**
   * Which way the text on an image runs: the clockwise turn (90, 180, 270) that sets it upright, or 0.
   * null when it cannot tell (too little text, or no OSD data installed).
   */
  async orientation(image: Uint8Array): Promise<number | null> {
    const r = await this.detect(image);
    return r && r.orientation_degrees !== null && (r.orientation_confidence ?? 0) >= 2 ? r.orientation_degrees : null;
  }

  /**
   * tesseract's guess at the script of a page's text, and the language data that reads it; `sure` when
   * its confidence reaches SCRIPT_SURE (its script detection is weak on scans: a Chinese page once came
   * back "Cyrillic" at confidence 12, so an unsure guess is told as a guess among others).
   */
  async script(image: Uint8Array): Promise<ScriptGuess | null> {
    const r = await this.detect(image);
    if (!r?.script) return null;
    return { script: r.script, language: SCRIPT_LANGUAGE[r.script] ?? null, sure: (r.script_confidence ?? 0) >= SCRIPT_SURE };
  }

  private async detect(image: Uint8Array): Promise<Tesseract.DetectData | null> {
    this.osd ??= (async () => {
      try {
        const dir = await languageFolder(this.dataDir, ['osd'], undefined);
        const { createWorker, OEM } = await import('tesseract.js');
        return await createWorker(
          'osd',
          OEM.TESSERACT_ONLY,
          {
            langPath: dir,
            gzip: false,
            cacheMethod: 'none',
            legacyCore: true,
            legacyLang: true,
            logger: () => undefined,
            errorHandler: () => undefined,
            ...QUIET_THREAD,
          },
          QUIET,
        );
      } catch {
        return null; // without OSD data, pages are read as they come
      }
    })();
    const osd = await this.osd;
    if (!osd) return null;
    try {
      return (await osd.detect(Buffer.from(image))).data;
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    await this.worker.terminate();
    await this.osd?.then((w) => w?.terminate());
  }
}
