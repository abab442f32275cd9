// The name of an embedding fingerprint's vector table, the same in either store (LanceDB's folder or
// PostgreSQL's schema): letters, digits and underscores only.
import { createHash } from 'node:crypto';

export function tableName(fingerprint: string): string {
  return `chunks_${createHash('sha256').update(fingerprint).digest('hex').slice(0, 16)}`;
}
