// JPEG EXIF orientation: cameras store pixels as the sensor saw them and a tag saying how to turn
// them for display. OCR reads the stored pixels; citations (`#xywh=`) are in the image as viewers
// show it, so boxes are turned the same way.

/** The EXIF Orientation tag (1–8) of a JPEG, 1 when there is none. */
export function jpegOrientation(b: Uint8Array): number {
  if (b[0] !== 0xff || b[1] !== 0xd8) return 1;
  let at = 2;
  while (at + 4 < b.length && b[at] === 0xff) {
    const marker = b[at + 1]!;
    const len = (b[at + 2]! << 8) | b[at + 3]!;
    if (marker === 0xe1 && b[at + 4] === 0x45 && b[at + 5] === 0x78 && b[at + 6] === 0x69 && b[at + 7] === 0x66) {
      const tiff = at + 10;
      const le = b[tiff] === 0x49;
      const u16 = (o: number): number => (le ? b[o]! | (b[o + 1]! << 8) : (b[o]! << 8) | b[o + 1]!);
      const u32 = (o: number): number => (le ? u16(o) | (u16(o + 2) << 16) : (u16(o) << 16) | u16(o + 2));
      const ifd = tiff + u32(tiff + 4);
      const n = u16(ifd);
      for (let i = 0; i < n; i++) {
        const e = ifd + 2 + i * 12;
        if (e + 10 > b.length) break;
        if (u16(e) === 0x0112) {
          const v = u16(e + 8);
          return v >= 1 && v <= 8 ? v : 1;
        }
      }
      return 1;
    }
    if (marker === 0xda) break; // image data: no EXIF before it
    at += 2 + len;
  }
  return 1;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A box in stored pixels (w × h image) → the same box in the image as displayed. */
export function toDisplayed(b: { x0: number; y0: number; x1: number; y1: number }, orientation: number, w: number, h: number): Box {
  const { x0, y0, x1, y1 } = b;
  const box = (x: number, y: number, bw: number, bh: number): Box => ({ x: Math.round(x), y: Math.round(y), w: Math.round(bw), h: Math.round(bh) });
  switch (orientation) {
    case 2: // mirrored left-right
      return box(w - x1, y0, x1 - x0, y1 - y0);
    case 3: // turned 180°
      return box(w - x1, h - y1, x1 - x0, y1 - y0);
    case 4: // mirrored top-bottom
      return box(x0, h - y1, x1 - x0, y1 - y0);
    case 5: // transposed
      return box(y0, x0, y1 - y0, x1 - x0);
    case 6: // shown turned 90° clockwise
      return box(h - y1, x0, y1 - y0, x1 - x0);
    case 7: // transversed
      return box(h - y1, w - x1, y1 - y0, x1 - x0);
    case 8: // shown turned 90° counter-clockwise
      return box(y0, w - x1, y1 - y0, x1 - x0);
    default:
      return box(x0, y0, x1 - x0, y1 - y0);
  }
}
