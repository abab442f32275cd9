// Statements whose SQL is built per call from a few fixed pieces (a search's filters, the Library's
// order): each distinct text prepared once and kept for the connection's life.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';

export class StatementCache {
  private readonly stmts = new Map<string, Statement>();

  constructor(private readonly db: Db) {}

  get(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }
}
