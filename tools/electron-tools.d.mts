// Types of electron-tools.mjs, for the tests that use it.
export function electronBinary(root: string): string | null;
export function electronViteBin(root: string): string;
export function fetchElectron(root: string): { binary: string; version: string } | { reason: string; download: boolean };
export function mirrorAdvice(command: string): string;
