// The PostgreSQL migrations in order. Never edit a shipped one: add the next file and list it here.
import type { Migration } from '../../migrations/migration.js';
import { migration as m1 } from './001-schema.js';
import { migration as m2 } from './002-work-claims.js';
import { migration as m3 } from './003-word-tops.js';
import { migration as m4 } from './004-bm25f-in-builtins.js';
import { migration as m5 } from './005-blob-parts.js';
import { migration as m6 } from './006-change-notice.js';
import { migration as m7 } from './007-accounts.js';
import { migration as m8 } from './008-row-security.js';
import { migration as m9 } from './009-vector-collections.js';
import { migration as m10 } from './010-tops-head.js';
import { migration as m11 } from './011-vector-queue.js';
import { migration as m12 } from './012-policy-functions.js';
import { migration as m13 } from './013-all-reads-only.js';
import { migration as m14 } from './014-chunk-insides.js';
import { migration as m15 } from './015-owner-does-ddl.js';
import { migration as m16 } from './016-chunk-counts.js';
import { migration as m17 } from './017-grants-move-generation.js';

export const PG_MIGRATIONS: readonly Migration[] = [m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17];
