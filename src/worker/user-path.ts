// A path typed into the app (kb serve's Folders and Models views): the server's working folder means
// nothing to the person typing, so it must be absolute; `~` is their home, as in a shell.
import { homedir } from 'node:os';
import { isAbsolute, join, normalize } from 'node:path';
import { KbError } from '../shared/errors.js';

export function typedPath(p: string): string {
  const t = p.trim();
  const expanded = t === '~' ? homedir() : t.startsWith('~/') || t.startsWith('~\\') ? join(homedir(), t.slice(2)) : t;
  if (!isAbsolute(expanded))
    throw new KbError('INVALID_ARGUMENT', `give the folder's full path (like ${join(homedir(), 'notes')} or ~/notes), not ${t}`);
  return normalize(expanded);
}
