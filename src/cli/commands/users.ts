// kb users, kb collections grant / revoke, kb audit: a team's accounts on a shared store (PostgreSQL),
// run with the database's own credentials (an administrator). A token is printed once: only its hash
// is kept.
import { type GlobalOptions, withClient } from '../context.js';
import { bold, dim, line, printJson, yellow } from '../output.js';

type Role = 'admin' | 'editor' | 'reader';

function tokenLines(r: { name: string; role: string; token: string }, what: string): void {
  line(`${what} ${bold(r.name)} (${r.role}). Their token, shown this once — give it to them:`);
  line(r.token);
  line(dim('They use it with kb --server URL --token … or in the app (Settings → Team server).'));
}

export async function usersAddCommand(name: string, flags: { role?: Role }, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb['users.add']({ name, ...(flags.role ? { role: flags.role } : {}) });
    if (g.json) printJson(r);
    else tokenLines(r, 'Added');
  });
}

export async function usersListCommand(g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb['users.list']({});
    if (g.json) return void printJson(r);
    if (r.users.length === 0) return void line('No users yet. Add one with: kb users add NAME --role reader');
    for (const u of r.users) line(`${bold(u.name.padEnd(20))} ${u.role.padEnd(7)} ${dim(mayDo(u, r.grants))}`);
  });
}

export async function usersRemoveCommand(name: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb['users.remove']({ name });
    if (g.json) printJson(r);
    else line(`Removed ${bold(name)}: their token no longer works, and their grants are gone`);
  });
}

export async function usersTokenCommand(name: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb['users.token']({ name });
    if (g.json) printJson(r);
    else tokenLines(r, 'A new token for');
  });
}

export async function grantCommand(kind: 'grant' | 'revoke', collection: string, grantee: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb[kind === 'grant' ? 'collections.grant' : 'collections.revoke']({ collection, grantee });
    if (g.json) return void printJson(r);
    const who = grantee === '@all' ? 'everyone' : bold(grantee);
    if (!r.changed) line(yellow(kind === 'grant' ? `${who} could read ${collection} already` : `${who} was not granted ${collection}`));
    else line(kind === 'grant' ? `${who} may now read ${bold(collection)}` : `${who} may no longer read ${bold(collection)}`);
  });
}

export async function auditCommand(flags: { limit?: number }, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb.audit(flags.limit ? { limit: flags.limit } : {});
    if (g.json) return void printJson(r);
    if (r.entries.length === 0) return void line('No changes to users, grants or collections yet.');
    for (const e of r.entries)
      line(`${dim(e.at)}  ${e.actor.padEnd(14)} ${e.action.padEnd(18)} ${e.target}${e.detail ? dim(`  ${e.detail}`) : ''}`);
  });
}

export async function grantServerCommand(role: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb['store.grant_server']({ role });
    if (g.json) return void printJson(r);
    line(
      `${bold(role)} may read and write kb's rows (schema ${r.schema}, owned by ${r.owner}), and owns nothing: row-level security holds for it.`,
    );
    line(dim(`Serve with its credentials: kb --store postgresql://${role}:…@host/db serve`));
  });
}

/**
 * What a user may do, in the words of the roles: an admin everything; an editor changes what is
 * granted to them by name and reads what is granted to everyone (@all grants reading only).
 */
function mayDo(u: { name: string; role: Role }, grants: readonly { collection: string; grantee: string }[]): string {
  if (u.role === 'admin') return 'reads and changes every collection';
  const named = [...new Set(grants.filter((g) => g.grantee === u.name).map((g) => g.collection))];
  const everyone = [...new Set(grants.filter((g) => g.grantee === '@all').map((g) => g.collection))].filter((c) => !named.includes(c));
  const parts = [
    ...(named.length > 0 ? [`${u.role === 'editor' ? 'changes' : 'reads'} ${named.join(', ')}`] : []),
    ...(everyone.length > 0 ? [`reads ${everyone.join(', ')} (granted to everyone)`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : 'no collection yet';
}
