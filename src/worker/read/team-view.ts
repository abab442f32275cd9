// What a team's reader or editor is told of the server itself: nothing of its configuration — no
// data dir, database address, log folder, disk, collection folders, language-model host or settings
// file (issue 50). Those are its admin's; a user sees what they may read and whether it works.
import type { AskResult, KbStatus } from '../../shared/wire.js';
import type { InspectedDocument } from './inspect.js';
import type { Settings } from '../../shared/settings.js';
import type { CollectionInfo } from '../collections/service.js';

/** Settings a person may keep for themselves in the app: the rest configure the server. */
const OWN = /^ui\./;

/** The index's status as a team user sees it: the counts of what they may read, no server paths. */
export function statusForTeamUser(s: KbStatus, visibleChunks: number): KbStatus {
  const { disk: _disk, ...rest } = s;
  return {
    ...rest,
    data_dir: '',
    store: { kind: s.store.kind, where: '' },
    chunks: visibleChunks,
    collections: s.collections.map((c) => ({ ...c, root: '' })),
    llm: {
      host: '',
      model: s.llm.model,
      status: s.llm.status,
      detail: s.llm.status === 'ok' ? 'ready' : "not ready: ask this server's admin",
    },
    logs: '',
  };
}

/** The settings as a team user sees them: their own (how the app looks), nothing of the server's. */
export function settingsForTeamUser(s: Settings): Settings {
  return {
    ...s,
    data_dir: '',
    config_file: '',
    values: Object.fromEntries(Object.entries(s.values).filter(([k]) => OWN.test(k))),
    overridden: {},
    restart_needed: [],
    ollama: {
      host: '',
      model: s.ollama.model,
      reachable: s.ollama.reachable,
      version: null,
      models: [],
      model_pulled: s.ollama.model_pulled,
      detail: s.ollama.reachable && s.ollama.model_pulled ? 'ready' : "not ready: ask this server's admin",
    },
    ocr_languages_installed: [],
  };
}

/** The collections a team user may read, by name: where their folders are on the server is its admin's. */
export function collectionsForTeamUser(cs: CollectionInfo[]): CollectionInfo[] {
  return cs.map((c) => ({ ...c, root: '' }));
}

/**
 * A passage's row as a team user sees it: without its number in the whole index (0), which counted
 * passages added to collections they cannot read (issue 50). Its id and ordinal still name it.
 */
export function unnumbered<T extends { rowid: number }>(chunk: T): T {
  return { ...chunk, rowid: 0 };
}

/** A document's stored records as a team user sees them: no passage numbers, nothing of where kb keeps its copy. */
export function inspectedForTeamUser(d: InspectedDocument): InspectedDocument {
  return { ...d, chunks: d.chunks.map(unnumbered), original: d.original && { ...d.original, blob_path: null } };
}

const NOT_READY = "the language model is not ready on this server: ask this server's admin";

/** An answer as a team user hears it: why the model could not answer, never where it runs or how it is set up. */
export function askForTeamUser(r: AskResult): AskResult {
  if (r.llm.status === 'ok') return r;
  return { ...r, llm: { status: r.llm.status, reason: NOT_READY }, reason: r.reason === r.llm.reason ? NOT_READY : r.reason };
}
