// A document's id, written once: 20 hex digits (the start of a sha256, ingest/doc-row.ts). The RPC
// params, the hosts' /doc/<id> routes and `kb get` all check it with these.
import { z } from 'zod';

/** The id's characters, for a pattern that holds one (a route: `/doc/<id>/view`). */
export const DOC_ID_CHARS = '[0-9a-f]{20}';
export const DOC_ID = new RegExp(`^${DOC_ID_CHARS}$`);
export const DocIdSchema = z.string().regex(DOC_ID, 'a document id');
