// The PostgreSQL migrations in order. Never edit a shipped one: add the next file and list it here.
import type { Migration } from '../../migrations/migration.js';
import { migration as m1 } from './001-schema.js';

export const PG_MIGRATIONS: readonly Migration[] = [m1];
