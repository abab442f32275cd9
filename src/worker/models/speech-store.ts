// Installed speech models: <data dir>/models/whisper/<name>.bin. Pulled from the hub (Range resume,
// the published SHA-1 checked) or imported from a file; either way validated (whisper-models.ts)
// before it is installed, and installed with one rename, so a half-written model is never loaded.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { type Hub, speechPullFailed, unknownModel } from './offline-help.js';
import { downloadFile, type FileProgress } from '../embed/download.js';
import { sha1Of, validateWhisperFile, whisperModelFile, whisperSpec, WHISPER_MODELS, WHISPER_REPO } from '../audio/whisper-models.js';
import type { SpeechModelSchema } from '../../shared/cli-output.js';
import type { z } from 'zod';

export type SpeechModelInfo = z.infer<typeof SpeechModelSchema>;

export class WhisperStore {
  constructor(private readonly dataDir: string) {}

  private get dir(): string {
    return dirname(whisperModelFile(this.dataDir, 'x'));
  }

  list(): SpeechModelInfo[] {
    const known = WHISPER_MODELS.map((m) => m.name);
    const custom = existsSync(this.dir)
      ? readdirSync(this.dir)
          .filter((f) => f.endsWith('.bin'))
          .map((f) => f.slice(0, -4))
          .filter((n) => !known.includes(n))
      : [];
    return [...known, ...custom].map((id) => {
      const path = whisperModelFile(this.dataDir, id);
      const installed = existsSync(path);
      return {
        id,
        about: whisperSpec(id)?.about ?? 'imported',
        installed,
        path: installed ? path : null,
        bytes: installed ? statSync(path).size : null,
      };
    });
  }

  /** Checks a finished file (shape, size, and the published checksum when the name is a known one), then installs it. */
  private async install(name: string, file: string): Promise<SpeechModelInfo> {
    await validateWhisperFile(file);
    const spec = whisperSpec(name);
    if (spec) {
      const sha1 = await sha1Of(file);
      if (sha1 !== spec.sha1) {
        throw new KbError(
          'MODEL_INVALID',
          `${file} is not ${name}: its SHA-1 is ${sha1.slice(0, 12)}…, whisper.cpp publishes ${spec.sha1.slice(0, 12)}… (import it under another name: --as whisper-custom)`,
        );
      }
    }
    await rename(file, whisperModelFile(this.dataDir, name));
    return this.list().find((m) => m.id === name)!;
  }

  async pull(
    name: string,
    hub: Hub,
    opts: { onProgress?: (p: FileProgress) => void; signal?: AbortSignal } = {},
  ): Promise<SpeechModelInfo> {
    const spec = whisperSpec(name);
    if (!spec) throw unknownModel(name);
    const staging = join(this.dir, '.partial', spec.file);
    await mkdir(dirname(staging), { recursive: true });
    const base = hub.url.replace(/\/+$/, '');
    await downloadFile(`${base}/${WHISPER_REPO}/resolve/main/${spec.file}`, staging, { path: spec.file }, opts).catch((e: unknown) => {
      throw speechPullFailed(e, spec, hub);
    });
    try {
      return await this.install(name, staging);
    } catch (e) {
      await rm(staging, { force: true }); // a wrong file must not be resumed from
      throw e;
    }
  }

  /** Installs a ggml file; its name is the known model its checksum matches, else `as` (whisper-…). */
  async import(file: string, as?: string): Promise<SpeechModelInfo> {
    if (!existsSync(file) || !statSync(file).isFile()) throw new KbError('NOT_FOUND', `no model file at ${file}`);
    await validateWhisperFile(file);
    let name = as;
    if (!name) {
      const sha1 = await sha1Of(file);
      name = WHISPER_MODELS.find((m) => m.sha1 === sha1)?.name;
      if (!name)
        throw new KbError('INVALID_ARGUMENT', `${file} is not one of the models kb knows by checksum: name it with --as whisper-<name>`);
    }
    if (!/^whisper-[\w.-]+$/.test(name))
      throw new KbError('INVALID_ARGUMENT', `a speech model's name starts with whisper-, e.g. whisper-custom (not ${name})`);
    const staging = join(this.dir, '.partial', `${name}-${randomBytes(4).toString('hex')}.bin`);
    await mkdir(dirname(staging), { recursive: true });
    try {
      await copyFile(file, staging);
      return await this.install(name, staging);
    } catch (e) {
      await rm(staging, { force: true });
      // Errors name the user's file, not kb's temporary copy of it.
      if (e instanceof KbError) throw new KbError(e.code, e.message.split(staging).join(file), { cause: e });
      throw e;
    }
  }

  async remove(name: string): Promise<void> {
    const path = whisperModelFile(this.dataDir, name);
    if (!existsSync(path)) throw new KbError('NOT_FOUND', `speech model ${name} is not installed`);
    await rm(path, { force: true });
  }
}
