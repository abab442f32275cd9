// Types of electron-tools.mjs, for the tests that use it.
export function electronBinary(root: string): string | null;
export function electronViteBin(root: string): string;
