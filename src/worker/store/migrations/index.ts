// The migrations in order. Never edit a shipped one: add the next file and list it here.
// `user_version` records the last applied (store/open-db.ts migrate).
import type { Migration } from './migration.js';
import { migration as m1 } from './001-documents-chunks-fts.js';
import { migration as m2 } from './002-chunk-generation-counter.js';
import { migration as m3 } from './003-ocr-pages.js';
import { migration as m4 } from './004-transcripts.js';
import { migration as m5 } from './005-collections.js';
import { migration as m6 } from './006-documents-names.js';
import { migration as m7 } from './007-ocr-pages-unreadable-with.js';
import { migration as m8 } from './008-type-tokens-author-date.js';
import { migration as m9 } from './009-stored-copies-index.js';
import { migration as m10 } from './010-word-tops.js';
import { migration as m11 } from './011-substrings-of-words.js';
import { migration as m12 } from './012-packed-chunk-text.js';
import { migration as m13 } from './013-word-index-text-first.js';
import { migration as m14 } from './014-chunk-records.js';
import { migration as m15 } from './015-planner-statistics-tables.js';

export type { Migration };

export const MIGRATIONS: readonly Migration[] = [m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15];
