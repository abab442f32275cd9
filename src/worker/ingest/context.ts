// What every step of an ingest is handed, and what preparing one file yields: apart from prepare.ts so
// the preparers of each kind of file (binary.ts) need not import the dispatcher that calls them.
import type { Config } from '../../shared/config.js';
import type { BlobsPort } from '../store/port.js';
import type { Store, Tables } from '../store/port.js';
import type { ParsePool } from './parse-pool.js';

export interface IngestContext {
  store: Store;
  blobs: BlobsPort;
  config: Config;
  parser: ParsePool;
  dataDir: string;
  /** Whether a speech model is installed: audio is queued for it, or waits for one. */
  speechModelReady?: () => boolean;
  /** A PDF's pages read so far (each window's chunks are written as it arrives). */
  onPages?: (path: string, pages: number) => void;
  /** Read every file again, even one whose bytes kb has indexed already ("Re-index", kb ingest --force). */
  force?: boolean;
  /**
   * When this ingest began (Date.now()). A file found indexed with the same bytes that another ingest
   * added since — the folder watcher, seeing the same drop — is reported added: to whoever asked, it
   * was not in the index and now is.
   */
  since?: number;
}

export type Outcome = 'added' | 'updated' | 'unchanged' | 'moved';

/** A file read and parsed, waiting for its turn to be written (writes happen strictly in order). */
/** `commit` writes the document inside the transaction it is handed (pipeline.ts). */
export type Prepared = { skip: string } | { commit: (t: Tables) => Promise<Outcome> };

/** The files a cancelled run did not read that its summary names (not_read_paths). */
export const NOT_READ_NAMED = 200;
