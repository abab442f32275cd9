// An image's whole frame, as a viewer shows it (EXIF orientations 5–8 turn it a quarter): what a scan
// that has no passage yet is cited as, instead of an empty region.
import { closeSync, openSync, readSync } from 'node:fs';
import { imageSize } from 'image-size';

/** Enough of the file for any header image-size reads (a JPEG's EXIF block comes before its size). */
const HEAD_BYTES = 512 * 1024;

export function imageBox(files: string[]): { w: number; h: number } | null {
  for (const file of files) {
    try {
      const fd = openSync(file, 'r');
      try {
        const buf = Buffer.alloc(HEAD_BYTES);
        const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
        const s = imageSize(buf.subarray(0, n));
        if (!s.width || !s.height) continue;
        const turned = (s.orientation ?? 1) >= 5;
        return turned ? { w: s.height, h: s.width } : { w: s.width, h: s.height };
      } finally {
        closeSync(fd);
      }
    } catch {
      // gone, unreadable, or not an image after all: try the next place
    }
  }
  return null;
}
