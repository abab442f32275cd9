// The team server this machine's app is connected to (Settings → Team server): its address and the
// person's token, kept in the data dir (team-server.json, 0600, like serve-token: whoever reads the
// data dir reads the index anyway), one connection held open and dialled again when it drops. The
// loop sends the Library, ask and Folders there, fuses searches of both indexes, and a server
// document's bytes are fetched once into the data dir's server-cache/ for the viewer.
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { z } from 'zod';
import type { ServerLink } from '../../shared/api.js';
import { KbError } from '../../shared/errors.js';
import { SCHEMA_VERSION, type DocumentSource } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { connectServer, type RemoteClient } from './remote-client.js';

const FILE = 'team-server.json';
const CACHE = 'server-cache';
/** A fetched document is served from the cache this long before it is fetched again. */
const KEPT_MS = 10 * 60_000;
const SavedSchema = z.object({ url: z.string(), token: z.string() });
type Saved = z.infer<typeof SavedSchema>;

export class TeamLink {
  private client: RemoteClient | null = null;
  private dialling: Promise<RemoteClient> | null = null;
  /** The file read once (every search asks whether a server is set); connect and disconnect renew it. */
  private savedP: Promise<Saved | null> | null = null;
  private closed = false;

  constructor(private readonly core: Core) {}

  private get file(): string {
    return join(this.core.dataDir, FILE);
  }

  private saved(): Promise<Saved | null> {
    this.savedP ??= readFile(this.file, 'utf8').then(
      (text) => {
        try {
          const s = SavedSchema.safeParse(JSON.parse(text));
          return s.success ? s.data : null;
        } catch {
          return null; // not kb's file: as if none were set (Settings can set one again)
        }
      },
      () => null,
    );
    return this.savedP;
  }

  /** Signs in to a server; kept for the next start only once it said who the token is. */
  async connect(url: string, token: string): Promise<ServerLink> {
    const client = await connectServer(url.trim(), token.trim());
    try {
      const who = await client.whoami({});
      const origin = client.origin;
      await mkdir(this.core.dataDir, { recursive: true });
      await writeFile(this.file, `${JSON.stringify({ url: origin, token: token.trim() })}\n`, { mode: 0o600 });
      await chmod(this.file, 0o600);
      this.savedP = Promise.resolve({ url: origin, token: token.trim() });
      this.client?.close();
      this.client = client;
      return { schema_version: SCHEMA_VERSION, url: origin, user: who.user, role: who.role, connected: true, error: null };
    } catch (e) {
      client.close();
      throw e;
    }
  }

  async disconnect(): Promise<ServerLink> {
    this.client?.close();
    this.client = null;
    await rm(this.file, { force: true });
    this.savedP = Promise.resolve(null);
    await rm(join(this.core.dataDir, CACHE), { recursive: true, force: true });
    return { schema_version: SCHEMA_VERSION, url: null, user: null, role: null, connected: false, error: null };
  }

  async status(): Promise<ServerLink> {
    const saved = await this.saved();
    if (!saved) return { schema_version: SCHEMA_VERSION, url: null, user: null, role: null, connected: false, error: null };
    try {
      const who = await (await this.remote())!.whoami({});
      return { schema_version: SCHEMA_VERSION, url: saved.url, user: who.user, role: who.role, connected: true, error: null };
    } catch (e) {
      return { schema_version: SCHEMA_VERSION, url: saved.url, user: null, role: null, connected: false, error: (e as Error).message };
    }
  }

  /** The server's client, dialled if the connection dropped; null when none is set. Throws when it cannot be reached. */
  async remote(): Promise<RemoteClient | null> {
    if (this.client?.open) return this.client;
    const saved = await this.saved();
    if (!saved) return null;
    this.dialling ??= connectServer(saved.url, saved.token).finally(() => (this.dialling = null));
    const client = await this.dialling;
    if (this.closed) {
      client.close(); // dialled while the engine closed
      throw new KbError('INTERNAL', 'the engine is closing');
    }
    this.client = client;
    return client;
  }

  /** The engine closes: the connection goes (an open socket would keep a finished command running). */
  close(): void {
    this.closed = true;
    this.client?.close();
    this.client = null;
  }

  /** Whether a server is set (without dialling it). */
  async configured(): Promise<boolean> {
    return (await this.saved()) !== null;
  }

  /**
   * A server document's bytes, for the viewer: fetched into server-cache/<id> and kept for a while
   * (a PDF's viewer asks for many ranges of one file), and the source said with that file.
   */
  async fetch(source: DocumentSource): Promise<DocumentSource> {
    const saved = await this.saved();
    if (!saved) throw new KbError('NOT_FOUND', `no document ${source.doc_id}`);
    const dir = join(this.core.dataDir, CACHE);
    const file = join(dir, source.doc_id);
    const have = await stat(file).catch(() => null);
    if (have && Date.now() - have.mtimeMs < KEPT_MS) return { ...source, file };
    const res = await fetch(`${saved.url}/doc/${source.doc_id}`, { headers: { authorization: `Bearer ${saved.token}` } });
    if (!res.ok || !res.body) throw new KbError('NOT_FOUND', `the team server did not hand over ${source.title} (${res.status})`);
    await mkdir(dir, { recursive: true });
    const part = `${file}.${process.pid}.part`;
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(part));
    await rename(part, file);
    return { ...source, file };
  }
}
