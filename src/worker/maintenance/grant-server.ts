// kb grant-server ROLE: the schema's owner lets a team server's role read and write kb's rows, and no
// more (store/postgres/server-role.ts). Only with the database's own credentials: a team admin signed
// in through a server acts through that server's role, which must own nothing.
import type { z } from 'zod';
import type { ServerGrantSchema } from '../../shared/cli-output.js';
import { KbError } from '../../shared/errors.js';
import { SCHEMA_VERSION } from '../../shared/wire.js';
import { currentActor } from '../acting.js';
import type { Core } from '../core.js';

export type ServerGrant = z.infer<typeof ServerGrantSchema>;

export async function grantServer(core: Core, role: string): Promise<ServerGrant> {
  if (currentActor() !== undefined)
    throw new KbError('FORBIDDEN', "a server's database role is granted with the database owner's credentials, not through a kb server");
  const store = core.store;
  if (store.kind !== 'postgres')
    throw new KbError('UNSUPPORTED', "a server's database role is PostgreSQL's: run this with --store postgresql://OWNER@host/db");
  const [{ grantServerRole }, { pgVersion }] = await Promise.all([
    import('../store/postgres/server-role.js'),
    import('../store/postgres/migrate.js'),
  ]);
  const granted = await grantServerRole(store.pool, role);
  return { schema_version: SCHEMA_VERSION, ...granted, schema: await pgVersion(store.pool) };
}
