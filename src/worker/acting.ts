// For whom the engine is working right now: a team server runs each request for its user, and every
// statement sent to PostgreSQL on that request's behalf names them (store/postgres/connect.ts), so
// the database's row-level security keeps each person to what they were granted. Carried by
// AsyncLocalStorage so it follows the request through every await without being passed by hand;
// outside any request (the CLI, the app, the engine's own upkeep) it is the database's own credentials.
import { AsyncLocalStorage } from 'node:async_hooks';

const acting = new AsyncLocalStorage<string>();

/** Runs `work` for `user`: every query it makes, however deep, is that user's. */
export function actingFor<T>(user: string, work: () => T): T {
  return acting.run(user, work);
}

/** The user the current work is for, or undefined for the machine's owner. */
export function currentActor(): string | undefined {
  return acting.getStore();
}

/**
 * Runs `work` as the engine itself, whoever's request started it: upkeep that serves everyone (the
 * heavy words' tops, embedding what waits, the watched folders) must see every row, not the rows of
 * whichever user happened to set it going.
 */
export function asEngine<T>(work: () => T): T {
  return acting.exit(work);
}

/** How a team's reader or editor sees the server's paths (accounts/team-paths.ts): a glob or a filter they send is matched against that. */
export interface PathView {
  shownPath(path: string): string;
  /** The collections they may read, each shown as /<name> in place of its folder. */
  readonly places: readonly { name: string; root: string }[];
}

const viewing = new AsyncLocalStorage<PathView>();

/** Runs `work` for a user who sees paths through `view`: what they filter by path is matched against what they see. */
export function inPathView<T>(view: PathView, work: () => T): T {
  return viewing.run(view, work);
}

/** The view of paths the current request's user has, or undefined (the server's own paths). */
export function currentPathView(): PathView | undefined {
  return viewing.getStore();
}
