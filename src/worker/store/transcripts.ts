// The transcription queue: audio and video waiting for a speech model ('waiting'), queued
// ('pending'), read ('done', with its timed segments) or failed.
import type { Db } from './db.js';
import type { TranscriptJob, TranscriptRow, TranscriptOutcome } from './rows.js';
import type { TranscriptsPort, Sync } from './port.js';

export type { TranscriptJob, TranscriptRow } from './rows.js';

export class Transcripts implements Sync<TranscriptsPort> {
  private readonly queueQ;
  private readonly pendingQ;
  private readonly waitingQ;
  private readonly wakeQ;
  private readonly clearWaitingErrorsQ;
  private readonly finishQ;
  private readonly ofQ;
  private readonly waitsQ;
  private readonly restoreQ;

  constructor(private readonly db: Db) {
    this.queueQ = db.prepare<[string, 'waiting' | 'pending']>(`INSERT INTO transcripts (doc_id, status) VALUES (?, ?)
      ON CONFLICT(doc_id) DO UPDATE SET status = excluded.status, model = NULL, language = NULL, segments = NULL, error = NULL`);
    this.pendingQ = db.prepare<
      [],
      TranscriptJob
    >(`SELECT t.doc_id, d.path, d.content_hash, d.title FROM transcripts t JOIN documents d ON d.id = t.doc_id
      WHERE t.status = 'pending' ORDER BY d.path`);
    this.restoreQ = db.prepare<[string, string, string | null, string | null, string | null, string | null]>(
      'INSERT OR REPLACE INTO transcripts (doc_id, status, model, language, segments, error) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.waitingQ = db.prepare<[], { doc_id: string }>("SELECT doc_id FROM transcripts WHERE status = 'waiting'");
    this.waitsQ = db.prepare<[string], { one: number }>("SELECT 1 AS one FROM transcripts WHERE doc_id = ? AND status = 'pending'");
    this.wakeQ = db.prepare<[]>("UPDATE transcripts SET status = 'pending' WHERE status = 'waiting'");
    this.clearWaitingErrorsQ = db.prepare<[number]>(
      "UPDATE documents SET error = NULL, updated_at = ? WHERE id IN (SELECT doc_id FROM transcripts WHERE status = 'waiting')",
    );
    this.finishQ = db.prepare<[TranscriptRow & { doc_id: string }]>(
      'UPDATE transcripts SET status = @status, model = @model, language = @language, segments = @segments, error = @error WHERE doc_id = @doc_id',
    );
    this.ofQ = db.prepare<[string], TranscriptRow>('SELECT status, model, language, segments, error FROM transcripts WHERE doc_id = ?');
  }

  queue(docId: string, status: 'waiting' | 'pending'): void {
    this.queueQ.run(docId, status);
  }
  pending(): TranscriptJob[] {
    return this.pendingQ.all();
  }
  waiting(): Set<string> {
    return new Set(this.waitingQ.all().map((r) => r.doc_id));
  }
  /** Whether the recording still waits. One process writes a SQLite index at a time: no claim to record. */
  claim(docId: string): boolean {
    return this.waitsQ.get(docId) !== undefined;
  }
  /** A speech model is installed: everything waiting for one is queued (and says so no more). */
  wake(): void {
    this.db.transaction(() => {
      this.clearWaitingErrorsQ.run(Date.now());
      this.wakeQ.run();
    })();
  }
  finish(r: TranscriptOutcome): void {
    this.finishQ.run(r);
  }
  of(docId: string): TranscriptRow | undefined {
    return this.ofQ.get(docId);
  }
  restore(docId: string, t: TranscriptRow): void {
    this.restoreQ.run(docId, t.status, t.model, t.language, t.segments, t.error);
  }
}
