// What this index holds and what it can do (kb status, the MCP status tool).
import { SCHEMA_VERSION, type KbStatus } from '../../shared/wire.js';
import type { Core } from '../core.js';
import type { SpeechService } from '../ingest/speech/speech.js';
import type { CollectionService } from '../collections/service.js';
import { logsDir } from '../log.js';
import { diskUsage } from './disk-usage.js';
import { statusForTeamUser } from './team-view.js';
import type { VectorService } from '../vectors/service.js';

export async function indexStatus(
  core: Core,
  parts: { vectors: VectorService; speech: SpeechService; collections: CollectionService },
  /** A team's reader or editor asks: the counts of what they may read, nothing of the server (team-view.ts). */
  teamUser = false,
): Promise<KbStatus> {
  if (teamUser) return statusForTeamUser(await indexStatus(core, parts), await core.store.tables.chunks.visible());
  const { ollamaFor } = await import('../ollama.js');
  const llm = ollamaFor(core.config.ask);
  return {
    schema_version: SCHEMA_VERSION,
    data_dir: core.dataDir,
    store: { kind: core.store.kind, where: core.store.where },
    documents: await core.store.tables.documents.count(),
    chunks: await core.store.tables.chunks.total(),
    collections: (await parts.collections.list()).map(({ name, root, documents, failed, waiting }) => ({
      name,
      root,
      documents,
      failed,
      waiting,
    })),
    embedding: { model: parts.vectors.model, installed: parts.vectors.modelInstalled() },
    speech: { model: core.config.audio.model, installed: parts.speech.ready() },
    llm: { host: llm.host, model: llm.model, ...(await llm.status()) },
    logs: logsDir(core.dataDir),
    disk: await diskUsage(core.dataDir, await core.store.tables.documents.storedBytes()),
  };
}
