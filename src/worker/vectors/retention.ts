// Apart from store.ts so the engine can name it without loading LanceDB.
/**
 * How long a replaced version of a vector table keeps its files. Every process checks for a newer
 * version before a read once a second has passed (store.ts, readConsistencyInterval), so only a read
 * running this long could still be on one.
 */
export const OLD_VERSIONS_KEPT_MS = 2 * 60_000;
