// JPEG EXIF orientation: cameras store pixels as the sensor saw them and a tag saying how to turn
// them for display. OCR reads the stored pixels; citations (`#xywh=`) are in the image as viewers
// show it, so boxes are turned the same way.
import { imageSize } from 'image-size';

/** The EXIF Orientation tag (1–8), read by image-size; 1 when there is none or the image is not one it reads. */
export function orientationOf(b: Uint8Array): number {
  try {
    const o = imageSize(b).orientation;
    return o && o >= 1 && o <= 8 ? o : 1;
  } catch {
    return 1;
  }
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
