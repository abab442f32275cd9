// Counted nouns in messages: "1 chunk", "2 chunks", "1 match", "3 matches".

/** `n` and the noun, singular for exactly one; `many` for irregular plurals (default: noun + s). */
export function plural(n: number, noun: string, many = `${noun}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? noun : many}`;
}
