// What waits for a speech model, and which one: the same test in the hits, the viewer and the Library.
import type { Settings } from '../../shared/settings';

/** The reason names a speech model: what the recording waits for can be got right here. */
export function waitsForSpeechModel(reason: string | null | undefined): boolean {
  return /speech model/.test(reason ?? '');
}

/** The speech model kb is set to use (audio.model). */
export function speechModel(settings: Settings | null): string {
  return String(settings?.values['audio.model'] ?? 'whisper-base.en');
}
