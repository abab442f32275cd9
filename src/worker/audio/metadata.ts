// What an audio or video file says about itself (music-metadata reads only headers and tags, not the
// sound): its length, sample rate and channels, and the title, artist and recording date to show.
import { KbError } from '../../shared/errors.js';

export interface AudioMeta {
  duration: number | null;
  sampleRate: number | null;
  channels: number | null;
  title: string | null;
  artist: string | null;
  /** The recording date as tagged (year, or an ISO date). */
  date: string | null;
}

export async function readAudioMeta(file: string): Promise<AudioMeta> {
  const { parseFile } = await import('music-metadata');
  try {
    const m = await parseFile(file, { duration: true, skipCovers: true });
    const f = m.format;
    const c = m.common;
    return {
      duration: typeof f.duration === 'number' && Number.isFinite(f.duration) ? f.duration : null,
      // Opus always codes at 48 kHz; its header's rate is only the original input's.
      sampleRate: f.codec?.toLowerCase() === 'opus' ? 48_000 : (f.sampleRate ?? null),
      channels: f.numberOfChannels ?? null,
      title: c.title?.trim() || null,
      artist: c.artist?.trim() || null,
      date: c.date ?? (c.year ? String(c.year) : null),
    };
  } catch (e) {
    throw new KbError('PARSE_FAILED', `not a readable audio or video file: ${(e as Error).message}`, { cause: e });
  }
}
