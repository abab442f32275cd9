// Draws the app's icon (resources/icon.png, 1024 px) — the tray's "kb" on a larger tile — from which
// electron-builder makes the .icns, .ico and Linux sizes. Run: npx tsx packaging/make-icon.ts.
import { writeFileSync } from 'node:fs';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';

const SIZE = 1024;
// macOS leaves a margin round an app's tile (824 of 1024 px); the other platforms show it as is.
const TILE = 824;
const at = (SIZE - TILE) / 2;
const canvas = createCanvas(SIZE, SIZE);
const g = canvas.getContext('2d');
const fill = g.createLinearGradient(0, at, 0, at + TILE);
fill.addColorStop(0, '#2b3445');
fill.addColorStop(1, '#10141c');
g.fillStyle = fill;
g.beginPath();
g.roundRect(at, at, TILE, TILE, 185);
g.fill();
// The letters in the sans-serif the machine has (DejaVu on Debian), bold, as the tray draws them.
const family = GlobalFonts.families.some((f) => f.family === 'DejaVu Sans') ? 'DejaVu Sans' : 'sans-serif';
g.fillStyle = '#ffffff';
g.font = `bold 440px "${family}"`;
g.textAlign = 'center';
g.textBaseline = 'alphabetic';
g.fillText('kb', SIZE / 2, at + TILE / 2 + 150);
// A cited span: the mark under the letters every hit carries.
g.fillStyle = '#f5b83d';
g.beginPath();
g.roundRect(SIZE / 2 - 210, at + TILE / 2 + 215, 420, 44, 22);
g.fill();
writeFileSync(new URL('../resources/icon.png', import.meta.url), canvas.toBuffer('image/png'));
