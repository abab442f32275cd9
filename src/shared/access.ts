// Who may call which method of the contract on a team server (issue 35), written once: the worker's
// loop checks each call against it, and the tests walk it.
import type { Method } from './api.js';
import type { Role } from './cli-output.js';

/**
 * Who may call each method on a team server: readers `read`, editors `read` and `write` (in the
 * collections granted them: the database checks each row), admins everything. The person at their
 * own machine, and whoever holds the database's credentials, is an admin.
 */
export type Access = 'read' | 'write' | 'admin';
export const ACCESS: { readonly [M in Method]: Access } = {
  status: 'read',
  whoami: 'read',
  search: 'read',
  ingest: 'write',
  'documents.page': 'read',
  'documents.paths': 'read',
  remove: 'write',
  doctor: 'admin',
  'doctor.fix': 'admin',
  source: 'read',
  // Opens a file on the machine kb runs on: the server's own desktop, not the person's.
  'document.open': 'admin',
  get: 'read',
  'inspect.document': 'read',
  'inspect.chunk': 'read',
  gc: 'admin',
  'store.migrate': 'admin',
  facets: 'read',
  'document.view': 'read',
  reindex: 'admin',
  ask: 'read',
  'index.status': 'read',
  'models.list': 'read',
  'models.pull': 'admin',
  'models.import': 'admin',
  'models.remove': 'admin',
  'models.use': 'admin',
  'collections.list': 'read',
  'collections.add': 'admin',
  'collections.leaving': 'admin',
  'collections.forget': 'admin',
  'users.add': 'admin',
  'users.list': 'admin',
  'users.remove': 'admin',
  'users.token': 'admin',
  'collections.grant': 'admin',
  'collections.revoke': 'admin',
  'store.grant_server': 'admin',
  audit: 'admin',
  'settings.get': 'read',
  'settings.set': 'admin',
  // The machine's own link to another server: never a team user's to change, or to see.
  'server.status': 'admin',
  'server.connect': 'admin',
  'server.disconnect': 'admin',
};
const GRANTED: Record<Role, readonly Access[]> = { reader: ['read'], editor: ['read', 'write'], admin: ['read', 'write', 'admin'] };
/** Whether a user of `role` may call `method`. */
export function mayCall(role: Role, method: Method): boolean {
  return GRANTED[role].includes(ACCESS[method]);
}
