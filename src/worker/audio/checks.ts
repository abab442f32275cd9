// kb doctor's checks of audio and video: ffmpeg to decode them, a valid speech model to hear them.
import { existsSync, statSync } from 'node:fs';
import type { Config } from '../../shared/config.js';
import type { DoctorCheck } from '../../shared/wire.js';
import { plural } from '../../shared/words.js';
import { findFfmpeg } from './decode.js';
import { validateWhisperFile, whisperModelFile } from './whisper-models.js';
import { formatBytes } from '../../shared/bytes.js';

/** `waiting`: audio and video files that wait for a speech model. */
export async function audioChecks(audio: Config['audio'], dataDir: string, waiting: number): Promise<DoctorCheck[]> {
  if (!audio.enabled) return [{ name: 'audio', status: 'ok', detail: 'off (audio.enabled: false): audio and video are skipped' }];
  const checks: DoctorCheck[] = [];
  try {
    checks.push({ name: 'ffmpeg', status: 'ok', detail: `${findFfmpeg(audio.ffmpeg_path)} decodes audio and video` });
  } catch (e) {
    checks.push({ name: 'ffmpeg', status: 'warn', detail: (e as Error).message });
  }
  const model = audio.model;
  const file = whisperModelFile(dataDir, model);
  if (!existsSync(file)) {
    const more = waiting > 0 ? `; ${plural(waiting, 'file')} ${waiting === 1 ? 'waits' : 'wait'} for it` : '';
    checks.push({
      name: 'speech model',
      status: 'warn',
      detail: `${model} is not installed, so audio and video are not transcribed (kb models pull ${model}, or kb models import FILE)${more}`,
    });
    return checks;
  }
  try {
    await validateWhisperFile(file);
    checks.push({ name: 'speech model', status: 'ok', detail: `${model} (${formatBytes(statSync(file).size)})` });
  } catch (e) {
    checks.push({
      name: 'speech model',
      status: 'fail',
      detail: `${(e as Error).message} (kb models remove ${model}, then pull it again)`,
    });
  }
  return checks;
}
