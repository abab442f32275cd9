// The one script a structured document's rendition runs (the viewer's sandboxed frame): a click in
// the frame gives it the keyboard, and without this Ctrl/⌘-K and Esc went to the frame and nowhere
// else. It only tells the window which of those keys was pressed; the frame stays an opaque origin
// (no allow-same-origin), its CSP allows this script by its hash and no other, and the document's own
// markup is sanitised before it gets there (read/render.ts).
export const VIEW_KEYS_SCRIPT =
  "addEventListener('keydown',function(e){var k=e.key;if(((e.ctrlKey||e.metaKey)&&k.toLowerCase()==='k')||k==='Escape'){e.preventDefault();parent.postMessage({kbViewKey:k==='Escape'?'Escape':'k'},'*');}});";

/** Its hash, as the CSP names it (test/view-keys checks it against the script). */
export const VIEW_KEYS_HASH = "'sha256-nhdKsZK/LSOo1t7byIqG8T+o95e6lLKiB0hMD2n74PU='";

/** What the frame posts: which key the window should act on. */
export interface ViewKeyMessage {
  kbViewKey: 'k' | 'Escape';
}
