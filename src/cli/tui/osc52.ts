// Copying to the clipboard from a terminal, also over SSH: OSC 52 asks the terminal itself to set
// it. Inside tmux the sequence is wrapped in tmux's passthrough so it reaches the outer terminal.
export function osc52(text: string, env: NodeJS.ProcessEnv = process.env): string {
  const seq = `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;
  if (!env.TMUX) return seq;
  // tmux passes through what is between ESC P tmux; and ESC \, with every ESC inside doubled.
  return `\x1bPtmux;${seq.replace(/\x1b/g, '\x1b\x1b')}\x1b\\`;
}
