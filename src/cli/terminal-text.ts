// Text from documents (their words, titles, headings, file names) is written to a person's terminal,
// where control characters are commands: an escape sequence in a teammate's note could set the
// window's title, write the clipboard (OSC 52) or redraw the screen. Each is shown as � instead; one
// character for one, so highlight ranges still point at the same words.

// C0 controls but tab and newline, DEL, and C1 controls (a lone 0x9b is a CSI on many terminals).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function terminalSafe(text: string): string {
  return text.replace(CONTROL, '\uFFFD');
}
