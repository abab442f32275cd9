// The contract's handlers over one engine: what each RPC method does, for whichever host serves it
// (loop.ts over a transport, or in-process for kb's commands) — with a team server's user's calls
// run as that user, and an app connected to a team server sending the owner's calls there.
import type { BackgroundEvent, EventArgs } from '../shared/events.js';
import type { Method, ModelPullProgress, Params } from '../shared/api.js';
import type { FileProgress } from './embed/download.js';
import { typedPath } from './user-path.js';
import { KbError } from '../shared/errors.js';
import { SCHEMA_VERSION } from '../shared/wire.js';
import type { Engine } from './engine.js';
import { errorFields, type Log } from './log.js';
import type { Account } from './accounts/service.js';
import { fuseAcross } from './link/fuse-across.js';
import { askForTeamUser, collectionsForTeamUser, inspectedForTeamUser, settingsForTeamUser, unnumbered } from './read/team-view.js';
import type { RemoteClient } from './link/remote-client.js';

export interface Call {
  signal: AbortSignal;
  progress: (data: unknown) => void;
  /** The team server's user the call is for, or null for the machine's owner. */
  who: Account | null;
}

export type Handlers = { [M in Method]: (params: Params<M>, call: Call) => Promise<unknown> };

/** A team server's reader or editor: told nothing of the server's own configuration (read/team-view.ts). */
const teamUser = (c: Call): boolean => c.who !== null && c.who.role !== 'admin';

/**
 * The contract's handlers over one engine. `broadcast` tells every window an event; `started` is
 * handed work a call leaves running after it answered (a model's follow-on work), so that a host
 * that ends (a one-shot command) can wait for it.
 */
export function handlers(
  engine: Engine,
  version: string,
  broadcast: (...event: EventArgs) => void,
  log: Log,
  started: (work: Promise<unknown>) => void = () => undefined,
): Handlers {
  return {
    status: async (_p, c) => ({ schema_version: SCHEMA_VERSION, ready: true, data_dir: teamUser(c) ? '' : engine.dataDir, version }),
    whoami: async (_p, c) => ({ schema_version: SCHEMA_VERSION, user: c.who?.name ?? null, role: c.who?.role ?? 'admin' }),
    search: async (p, c) => {
      const server = await linked(c).catch((e: Error) => e);
      if (server === null) return engine.search(p);
      // Both indexes at once; a server that cannot be reached leaves this computer's results, said.
      const [local, remote] = await Promise.all([
        engine.search(p),
        server instanceof Error ? server : server.search(p).catch((e: Error) => e),
      ]);
      const origin = server instanceof Error ? ((await engine.link.status()).url ?? 'the team server') : server.origin;
      return fuseAcross(local, remote, origin, engine.config.search.rrf_k, p.top ?? 10);
    },
    ingest: async (p, c) => {
      const opts = { tags: p.tags ?? [], force: p.force === true, signal: c.signal, onProgress: c.progress };
      if (p.collection === undefined) return engine.ingest(p.paths, opts);
      // Into the connected team server's collection (remote-client.ts sends the bytes), or this index's.
      const server = await linked(c);
      if (server) return server.ingest(p, { signal: c.signal, onProgress: c.progress });
      return engine.ingestInto(p.collection, p.paths, opts);
    },
    'documents.page': async (p, c) => (await linked(c))?.['documents.page'](p) ?? engine.libraryPage(p),
    'documents.paths': async (p, c) =>
      (await linked(c))?.['documents.paths'](p) ?? { schema_version: SCHEMA_VERSION, paths: await engine.documentPaths() },
    remove: (p, c) =>
      localFirst(
        c,
        () => engine.remove(p.target),
        (s) => s.remove(p),
      ),
    doctor: () => engine.doctor(),
    'doctor.fix': (_p, c) => engine.fix({ onProgress: c.progress }),
    source: (p, c) =>
      localFirst(
        c,
        async () => engine.source(p.doc_id),
        async (s) => engine.link.fetch(await s.source(p)),
      ),
    'document.view': (p, c) =>
      localFirst(
        c,
        () => engine.view(p.doc_id, p.at, p.q),
        (s) => s['document.view'](p),
      ),
    'document.open': async (p) => engine.openDocument(p.doc_id),
    get: (p, c) =>
      localFirst(
        c,
        () => engine.get(p.target, p.max_chars),
        (s) => s.get(p),
      ),
    'inspect.document': (p, c) =>
      localFirst(
        c,
        async () => {
          const d = await engine.inspectDoc(p.target);
          return teamUser(c) ? inspectedForTeamUser(d) : d;
        },
        (s) => s['inspect.document'](p),
      ),
    'inspect.chunk': (p, c) =>
      localFirst(
        c,
        async () => {
          const x = await engine.inspectChunk(p.chunk_id);
          return teamUser(c) ? { ...x, chunk: unnumbered(x.chunk) } : x;
        },
        (s) => s['inspect.chunk'](p),
      ),
    gc: () => engine.gc(),
    'store.migrate': (p, c) => engine.migrateTo(p.to, { signal: c.signal, onProgress: c.progress }),
    facets: async (p, c) =>
      (await linked(c))?.facets(p) ?? { schema_version: SCHEMA_VERSION, ...(await engine.facets()), ...(await engine.documentCounts()) },
    reindex: (p, c) => engine.reindex({ ...(p.model ? { model: p.model } : {}), signal: c.signal, onProgress: c.progress }),
    ask: async (p, c) => {
      const server = await linked(c);
      if (!server) {
        const r = await engine.ask({ question: p.question, ...(p.top ? { top: p.top } : {}), signal: c.signal, onProgress: c.progress });
        return teamUser(c) ? askForTeamUser(r) : r;
      }
      // The team's documents answer; each source says where it came from, as a search's hits do.
      const r = await server.ask(p, { signal: c.signal, onProgress: c.progress });
      return { ...r, sources: r.sources.map((s) => ({ ...s, hit: { ...s.hit, from: server.origin } })) };
    },
    'index.status': (_p, c) => engine.status(teamUser(c)),
    'models.list': () => engine.listModels(),
    'models.pull': async (p, c) => {
      const model = await pullWithProgress(engine, p.name, c);
      afterModel(p.name);
      return { schema_version: SCHEMA_VERSION, model };
    },
    'models.import': async (p) => {
      const model = await engine.importModel(typedPath(p.path), p.as);
      afterModel(model.id);
      return { schema_version: SCHEMA_VERSION, model };
    },
    'models.remove': async (p) => {
      await engine.removeModel(p.name);
      return { schema_version: SCHEMA_VERSION, removed: p.name };
    },
    'models.use': async (p, c) => ({
      schema_version: SCHEMA_VERSION,
      ...(await engine.useModel(p.name, { signal: c.signal, onProgress: c.progress })),
    }),
    'collections.list': async (p, c) =>
      (await linked(c))?.['collections.list'](p) ?? {
        schema_version: SCHEMA_VERSION,
        collections: teamUser(c) ? collectionsForTeamUser(await engine.collections()) : await engine.collections(),
      },
    'collections.add': async (p, c) => {
      const { collection, reconciled } = await engine.addCollection(typedPath(p.path), {
        ...(p.name ? { name: p.name } : {}),
        ...(p.tags ? { tags: p.tags } : {}),
        ...(p.glob ? { glob: p.glob } : {}),
        ...(p.many ? { many: true } : {}),
        signal: c.signal,
        onProgress: c.progress,
      });
      return { schema_version: SCHEMA_VERSION, collection, reconciled };
    },
    'collections.leaving': async (p) => ({ schema_version: SCHEMA_VERSION, ...(await engine.leavingCollection(p.name)) }),
    'collections.forget': async (p) => ({ schema_version: SCHEMA_VERSION, ...(await engine.forgetCollection(p.name)) }),
    'users.add': async (p) => ({ schema_version: SCHEMA_VERSION, ...(await engine.accounts.addUser(p.name, p.role ?? 'reader')) }),
    'users.list': async () => ({
      schema_version: SCHEMA_VERSION,
      users: (await engine.accounts.listUsers()).map((u) => ({ ...u, created_at: new Date(u.created_at).toISOString() })),
      grants: await engine.accounts.grants(),
    }),
    'users.remove': async (p) => {
      await engine.accounts.removeUser(p.name);
      return { schema_version: SCHEMA_VERSION, removed: p.name };
    },
    'store.grant_server': (p) => engine.grantServer(p.role),
    'users.token': async (p) => ({ schema_version: SCHEMA_VERSION, ...(await engine.accounts.newToken(p.name)) }),
    'collections.grant': async (p) => ({ schema_version: SCHEMA_VERSION, ...p, ...(await engine.accounts.grant(p.collection, p.grantee)) }),
    'collections.revoke': async (p) => ({
      schema_version: SCHEMA_VERSION,
      ...p,
      ...(await engine.accounts.revoke(p.collection, p.grantee)),
    }),
    audit: async (p) => ({
      schema_version: SCHEMA_VERSION,
      entries: (await engine.accounts.trail(p.limit)).map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
    }),
    'settings.get': async (_p, c) => (teamUser(c) ? settingsForTeamUser(await engine.settings()) : engine.settings()),
    'settings.set': (p) => engine.setSetting(p.key, p.value),
    'server.status': () => engine.link.status(),
    // Every window's Library, facets and folders now come from elsewhere: they ask again.
    'server.connect': async (p) => {
      const link = await engine.link.connect(p.url, p.token);
      broadcast('changed', {});
      return link;
    },
    'server.disconnect': async () => {
      const link = await engine.link.disconnect();
      broadcast('changed', {});
      return link;
    },
  };

  /**
   * The team server this machine's app is connected to, for its owner's calls (a team server's own
   * users are never sent on); null when there is none. Throws when it is set but cannot be reached.
   */
  async function linked(c: Call): Promise<RemoteClient | null> {
    return c.who ? null : engine.link.remote();
  }

  /**
   * A call about one document: this machine's index first, then the server (a search's hits come
   * from both, and a document id says nothing of where it lives).
   */
  async function localFirst<T>(c: Call, local: () => Promise<T>, server: (s: RemoteClient) => Promise<T>): Promise<T> {
    try {
      return await local();
    } catch (e) {
      if (!(e instanceof KbError && e.code === 'NOT_FOUND')) throw e;
      const s = await linked(c).catch(() => null);
      if (!s) throw e;
      return server(s);
    }
  }

  /** What a model's arrival starts runs after the call answers; every window hears how it goes. */
  function afterModel(name: string): void {
    let task: BackgroundEvent['task'] = 'embedding';
    const tell = (e: BackgroundEvent): void => broadcast('background', e);
    const work = engine
      .modelArrived(name, {
        onVectors: (p) => tell({ task: 'embedding', phase: 'running', done: p.done, total: p.total }),
        onAudio: (p) => {
          task = 'transcribing';
          tell({ task, phase: 'running', done: p.done, total: p.total });
        },
      })
      .then(
        (did) => {
          if (did) tell({ ...did, phase: 'done', done: 1, total: 1 });
        },
        (e: unknown) => {
          log.warn({ model: name, ...errorFields(e) }, 'work after a model arrived failed');
          tell({ task, phase: 'failed', done: 0, total: 0, message: (e as Error).message });
        },
      );
    started(work);
  }
}

/** Progress at least every PULL_TICK_MS, even while the hub is silent, and never more often. */
const PULL_TICK_MS = 250;

async function pullWithProgress(engine: Engine, name: string, c: Call): Promise<Awaited<ReturnType<Engine['pullModel']>>> {
  const files = new Map<string, { received: number; total: number | null }>();
  let last: FileProgress | null = null;
  const report = (): void => {
    if (!last) return;
    const all = [...files.values()];
    const totals = all.map((f) => f.total);
    c.progress({
      model: name,
      file: last.file,
      received: last.received,
      total: last.total,
      done_bytes: all.reduce((n, f) => n + f.received, 0),
      total_bytes: totals.every((t) => t !== null) ? totals.reduce<number>((n, t) => n + (t ?? 0), 0) : null,
    } satisfies ModelPullProgress);
  };
  const timer = setInterval(report, PULL_TICK_MS);
  try {
    return await engine.pullModel(name, {
      signal: c.signal,
      onProgress: (p) => {
        last = p;
        files.set(p.file, { received: p.received, total: p.total });
      },
    });
  } finally {
    clearInterval(timer);
    report();
  }
}
