// Every count the app shows is written one way: 1,234, never 1234 in one view and 1,234 in the next.
export const num = (n: number): string => n.toLocaleString('en-US');

/** `1 document`, `1,234 documents`. */
export const count = (n: number, noun: string, many = `${noun}s`): string => `${num(n)} ${n === 1 ? noun : many}`;
