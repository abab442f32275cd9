// Installed models: <data dir>/models/<id>/ in the Hugging Face layout — the registry's embedding
// models and rerankers by their ids, and folders imported under names of their own (with the
// kb-model.json kb wrote after reading them). A model appears there only complete: downloads and
// imports are assembled in models/.partial/ and renamed into place.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cp, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { downloadFile, type FileProgress } from '../embed/download.js';
import { Embedder, ONNX_FILES, onnxFileIn } from '../embed/embedder.js';
import { embeddingPullFailed, type Hub, unknownModel } from './offline-help.js';
import { type HubModel, MODELS, modelSpec, RERANKERS, rerankerSpec } from '../embed/registry.js';
import { importedNames, MANIFEST, type Manifest, readManifest } from '../embed/resolve.js';
import { readModelFolder } from '../embed/st-folder.js';
import type { EmbeddingModelSchema } from '../../shared/cli-output.js';
import type { z } from 'zod';

export type ModelInfo = z.infer<typeof EmbeddingModelSchema>;

function hubModel(id: string): HubModel {
  const spec = modelSpec(id) ?? rerankerSpec(id);
  if (!spec) throw unknownModel(id);
  return spec;
}

/** A name of the user's choosing becomes a folder name: nothing that could mean another place or another kind. */
function checkName(id: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(id) || id.startsWith('whisper-')) {
    throw new KbError(
      'INVALID_ARGUMENT',
      `"${id}" cannot name a model: use letters, digits, . _ - (not starting with whisper-, which names speech models)`,
    );
  }
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
    const sized = (id: string): Pick<ModelInfo, 'installed' | 'path' | 'bytes'> => {
      const installed = this.isInstalled(id);
      return { installed, path: installed ? this.pathOf(id) : null, bytes: installed ? folderBytes(this.pathOf(id)) : null };
    };
    const download = (m: HubModel): number | null => (m.files.some((f) => f.size) ? m.files.reduce((n, f) => n + (f.size ?? 0), 0) : null);
    const registry: ModelInfo[] = [
      ...MODELS.map((m) => ({
        id: m.id,
        kind: 'embedding' as const,
        source: 'registry' as const,
        repo: m.repo,
        dimension: m.dimension,
        max_tokens: m.maxTokens,
        ...sized(m.id),
        download_bytes: download(m),
      })),
      ...RERANKERS.map((m) => ({
        id: m.id,
        kind: 'reranker' as const,
        source: 'registry' as const,
        repo: m.repo,
        dimension: 0,
        max_tokens: m.maxTokens,
        ...sized(m.id),
        download_bytes: download(m),
      })),
    ];
    const imported = importedNames(this.dir).flatMap((id): ModelInfo[] => {
      const m = readManifest(this.pathOf(id));
      if (!m || modelSpec(id) || rerankerSpec(id)) return [];
      const dimension = m.kind === 'embedding' ? m.spec.dimension : 0;
      return [
        { id, kind: m.kind, source: 'imported', repo: m.from, dimension, max_tokens: m.spec.maxTokens, ...sized(id), download_bytes: null },
      ];
    });
    return [...registry, ...imported];
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
  async pull(id: string, hub: Hub, opts: { onProgress?: (p: FileProgress) => void; signal?: AbortSignal } = {}): Promise<ModelInfo> {
    const spec = hubModel(id);
    const staging = join(this.dir, '.partial', id);
    await mkdir(staging, { recursive: true });
    const base = hub.url.replace(/\/+$/, '');
    try {
      for (const f of spec.files) {
        const dest = join(staging, f.path);
        if (existsSync(dest)) continue; // finished (and verified) by an earlier, interrupted pull
        await downloadFile(`${base}/${spec.repo}/resolve/${spec.revision}/${f.path}`, dest, f, opts);
      }
    } catch (e) {
      throw embeddingPullFailed(e, spec, hub);
    }
    if (!onnxFileIn(staging)) throw new KbError('MODEL_INVALID', `${spec.repo} has no ONNX file where kb expects one`);
    await this.install(id, staging);
    return this.list().find((m) => m.id === id)!;
  }

  /**
   * Copies a model folder (Hugging Face layout) in after checking that it loads: as the registry model
   * it is named for, or, under a name of its own, as what its sentence-transformers files say it is.
   */
  async import(from: string, id: string): Promise<ModelInfo> {
    const registry = modelSpec(id) ?? rerankerSpec(id);
    if (!registry) checkName(id);
    if (!existsSync(from) || !statSync(from).isDirectory()) throw new KbError('NOT_FOUND', `no model folder at ${from}`);
    // Checked here, on the folder the user named: the copy below is kb's own business.
    const lacking = [
      existsSync(join(from, 'tokenizer.json')) ? null : 'tokenizer.json',
      onnxFileIn(from) ? null : `the ONNX weights (${ONNX_FILES.join(' or ')})`,
    ].filter(Boolean);
    if (lacking.length > 0) {
      const like = registry ? `https://huggingface.co/${registry.repo} has` : 'a model on the Hugging Face hub has';
      throw new KbError(
        'MODEL_INVALID',
        `${from} lacks ${lacking.join(' and ')}: a model folder holds what ${like} (config.json, tokenizer.json, onnx/…)`,
      );
    }
    const staging = join(this.dir, '.partial', `${id}-import-${randomBytes(4).toString('hex')}`);
    await mkdir(join(this.dir, '.partial'), { recursive: true });
    try {
      await cp(from, staging, { recursive: true, filter: (src) => !src.endsWith(MANIFEST) });
      const manifest = await this.check(staging, id, from);
      if (manifest) await writeFile(join(staging, MANIFEST), JSON.stringify(manifest, null, 2));
      await this.install(id, staging);
    } catch (e) {
      await rm(staging, { recursive: true, force: true });
      // Errors name the file that is wrong: the user's, not kb's temporary copy of it.
      if (e instanceof KbError) throw new KbError(e.code, e.message.split(staging).join(from), { cause: e });
      throw e;
    }
    return this.list().find((m) => m.id === id)!;
  }

  /** Loads the staged folder as what it claims to be; for a name of the user's own, what kb learnt of it. */
  private async check(dir: string, id: string, from: string): Promise<Manifest | null> {
    const embedding = modelSpec(id);
    const reranker = rerankerSpec(id);
    if (embedding) {
      const e = await Embedder.load(dir, embedding).catch((err: unknown) => {
        if (err instanceof KbError && /dimensional/.test(err.message)) {
          throw new KbError(err.code, `${err.message} — to use it as a model of its own: kb models import ${from} --as NAME`, {
            cause: err,
          });
        }
        throw err;
      });
      await e.close();
      return null;
    }
    const { CrossEncoder } = await import('../embed/cross-encoder.js');
    if (reranker) {
      await (await CrossEncoder.load(dir, id, reranker.maxTokens)).close();
      return null;
    }
    const reading = readModelFolder(dir);
    const imported_at = new Date().toISOString();
    if (reading.kind === 'reranker') {
      await (await CrossEncoder.load(dir, id, reading.maxTokens)).close();
      return { kind: 'reranker', spec: { id, maxTokens: reading.maxTokens }, from, imported_at };
    }
    const { dense, kind: _kind, ...how } = reading;
    const e = await Embedder.load(dir, { id, provider: 'onnx', dimension: 0, ...how });
    await e.close();
    if (dense && !e.pooledInGraph) {
      throw new KbError(
        'MODEL_INVALID',
        `${from} has Dense layers after pooling (modules.json) that its ONNX graph does not apply: export it with a sentence_embedding output`,
      );
    }
    return { kind: 'embedding', spec: e.spec, from, imported_at };
  }

  async remove(id: string): Promise<void> {
    if (!modelSpec(id) && !rerankerSpec(id)) {
      checkName(id);
      if (!readManifest(this.pathOf(id))) throw unknownModel(id);
    }
    if (!existsSync(this.pathOf(id))) throw new KbError('NOT_FOUND', `model ${id} is not installed`);
    await rm(this.pathOf(id), { recursive: true, force: true });
    await rm(join(this.dir, '.partial', id), { recursive: true, force: true });
  }
}
