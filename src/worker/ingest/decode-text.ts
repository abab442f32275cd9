// Text files' bytes → text: UTF-8 when valid, else the legacy encoding chardet detects. Apart from
// detect.ts so the readers of CSV, web pages and mail attachments need not import the detector that
// dispatches to them.
import chardet from 'chardet';
import { KbError } from '../../shared/errors.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** UTF-8 when valid; otherwise the detected legacy encoding (Latin-1, Shift_JIS, EUC-KR, …). */
export function decodeText(bytes: Uint8Array): { text: string; encoding: string } {
  try {
    return { text: utf8.decode(bytes), encoding: 'utf-8' };
  } catch {
    const guess = chardet.detect(bytes);
    const label = guess && guess !== 'UTF-8' ? guess.toLowerCase() : 'windows-1252';
    try {
      return { text: new TextDecoder(label).decode(bytes), encoding: label };
    } catch {
      throw new KbError('INVALID_ENCODING', 'not valid UTF-8 and the encoding could not be determined');
    }
  }
}
