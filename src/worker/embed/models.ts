// Installed models: <data dir>/models/<id>/ in the Hugging Face layout. A model appears there only
// complete: downloads and imports are assembled in models/.partial/<id>/ and renamed into place.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cp, mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { downloadFile, type FileProgress } from './download.js';
import { Embedder, ONNX_FILES, onnxFileIn } from './embedder.js';
import { embeddingPullFailed, unknownModel } from '../models/offline-help.js';
import { MODELS, type ModelSpec, modelSpec } from './registry.js';
import type { EmbeddingModelSchema } from '../../shared/cli-output.js';
import type { z } from 'zod';

export type ModelInfo = z.infer<typeof EmbeddingModelSchema>;

function knownSpec(id: string): ModelSpec {
  const spec = modelSpec(id);
  if (!spec) throw unknownModel(id);
  return spec;
}

function folderBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? folderBytes(p) : statSync(p).size;
  }
  return n;
}

export class ModelStore {
  constructor(readonly dir: string) {}

  pathOf(id: string): string {
    return join(this.dir, id);
  }

  isInstalled(id: string): boolean {
    return existsSync(join(this.pathOf(id), 'tokenizer.json')) && onnxFileIn(this.pathOf(id)) !== null;
  }

  list(): ModelInfo[] {
    return MODELS.map((m) => {
      const installed = this.isInstalled(m.id);
      return {
        id: m.id,
        repo: m.repo,
        dimension: m.dimension,
        max_tokens: m.maxTokens,
        installed,
        path: installed ? this.pathOf(m.id) : null,
        bytes: installed ? folderBytes(this.pathOf(m.id)) : null,
        download_bytes: m.files.some((f) => f.size) ? m.files.reduce((n, f) => n + (f.size ?? 0), 0) : null,
      };
    });
  }

  /** Replaces models/<id> with a finished folder in one rename (the old one is removed after). */
  private async install(id: string, ready: string): Promise<string> {
    const final = this.pathOf(id);
    let old: string | null = null;
    if (existsSync(final)) {
      old = join(this.dir, `.old-${id}-${randomBytes(4).toString('hex')}`);
      await rename(final, old);
    }
    await rename(ready, final);
    if (old) await rm(old, { recursive: true, force: true });
    return final;
  }

  /**
   * Downloads a model from `{endpoint}/{repo}/resolve/{revision}/{file}`. An interrupted pull leaves
   * its .part files in models/.partial/<id>, and the next pull resumes them.
   */
  async pull(id: string, endpoint: string, opts: { onProgress?: (p: FileProgress) => void; signal?: AbortSignal } = {}): Promise<ModelInfo> {
    const spec = knownSpec(id);
    const staging = join(this.dir, '.partial', id);
    await mkdir(staging, { recursive: true });
    const base = endpoint.replace(/\/+$/, '');
    try {
      for (const f of spec.files) {
        const dest = join(staging, f.path);
        if (existsSync(dest)) continue; // finished (and verified) by an earlier, interrupted pull
        await downloadFile(`${base}/${spec.repo}/resolve/${spec.revision}/${f.path}`, dest, f, opts);
      }
    } catch (e) {
      throw embeddingPullFailed(e, spec, base);
    }
    if (!onnxFileIn(staging)) throw new KbError('MODEL_INVALID', `${spec.repo} has no ONNX file where kb expects one`);
    await this.install(id, staging);
    return this.list().find((m) => m.id === id)!;
  }

  /** Copies a model folder (Hugging Face layout) in, after checking that it loads and fits the spec. */
  async import(from: string, id: string): Promise<ModelInfo> {
    const spec = knownSpec(id);
    if (!existsSync(from) || !statSync(from).isDirectory()) throw new KbError('NOT_FOUND', `no model folder at ${from}`);
    // Checked here, on the folder the user named: the copy below is kb's own business.
    const lacking = [existsSync(join(from, 'tokenizer.json')) ? null : 'tokenizer.json', onnxFileIn(from) ? null : `the ONNX weights (${ONNX_FILES.join(' or ')})`].filter(Boolean);
    if (lacking.length > 0) {
      throw new KbError('MODEL_INVALID', `${from} lacks ${lacking.join(' and ')}: a model folder holds what https://huggingface.co/${spec.repo} has (config.json, tokenizer.json, onnx/…)`);
    }
    const staging = join(this.dir, '.partial', `${id}-import-${randomBytes(4).toString('hex')}`);
    await mkdir(join(this.dir, '.partial'), { recursive: true });
    try {
      await cp(from, staging, { recursive: true });
      const e = await Embedder.load(staging, spec);
      await e.close();
      await this.install(id, staging);
    } catch (e) {
      await rm(staging, { recursive: true, force: true });
      // Errors name the file that is wrong: the user's, not kb's temporary copy of it.
      if (e instanceof KbError) throw new KbError(e.code, e.message.split(staging).join(from), { cause: e });
      throw e;
    }
    return this.list().find((m) => m.id === id)!;
  }

  async remove(id: string): Promise<void> {
    knownSpec(id);
    if (!existsSync(this.pathOf(id))) throw new KbError('NOT_FOUND', `model ${id} is not installed`);
    await rm(this.pathOf(id), { recursive: true, force: true });
    await rm(join(this.dir, '.partial', id), { recursive: true, force: true });
  }
}
