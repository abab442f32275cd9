// The index's tables, one typed module each; every statement of the engine's own data is in them.
// Callers own transactions (store/tx.ts).
import type { Db } from './db.js';
import { Chunks } from './chunks.js';
import { Collections } from './collections.js';
import { Documents } from './documents.js';
import { HitReader } from './hits.js';
import { NameIndex } from './names.js';
import { IngestErrors } from './ingest-errors.js';
import { OcrPages } from './ocr-pages.js';
import { Originals } from './originals.js';
import { LibraryPages } from './library-pages.js';
import { Tags } from './tags.js';
import { Transcripts } from './transcripts.js';

export type { ChunkRow, NewChunk } from './chunks.js';
export type { CollectionRow } from './collections.js';
export type { DocFacts, DocRow, DocStamp, DocWithFacts } from './documents.js';
export type { OcrJob } from './ocr-pages.js';
export type { OriginalRow } from './originals.js';
export type { TranscriptJob } from './transcripts.js';

export class Repo {
  readonly documents: Documents;
  readonly chunks: Chunks;
  readonly tags: Tags;
  readonly originals: Originals;
  readonly errors: IngestErrors;
  readonly ocr: OcrPages;
  readonly transcripts: Transcripts;
  readonly collections: Collections;
  readonly library: LibraryPages;
  readonly hits: HitReader;
  readonly names: NameIndex;

  constructor(readonly db: Db) {
    this.documents = new Documents(db);
    this.chunks = new Chunks(db);
    this.tags = new Tags(db);
    this.originals = new Originals(db);
    this.errors = new IngestErrors(db);
    this.ocr = new OcrPages(db);
    this.transcripts = new Transcripts(db);
    this.collections = new Collections(db);
    this.library = new LibraryPages(db);
    this.hits = new HitReader(db);
    this.names = new NameIndex(db);
  }
}
