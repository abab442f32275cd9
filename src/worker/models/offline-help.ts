// What to do when a model cannot be downloaded: the same words for embedding and speech models, and
// for every way a download fails (no network, a proxy, a mirror that lacks the file).
import { KbError } from '../../shared/errors.js';
import { type HubModel, MODELS, RERANKERS } from '../embed/registry.js';
import { WHISPER_MODELS, WHISPER_REPO, type WhisperSpec } from '../audio/whisper-models.js';

/** Every model `kb models pull` knows, both kinds, for "unknown model" errors. */
export function unknownModel(name: string): KbError {
  return new KbError(
    'INVALID_ARGUMENT',
    `unknown model ${name}. Embedding models (search by meaning): ${MODELS.map((m) => m.id).join(', ')}. ` +
      `Rerankers: ${RERANKERS.map((m) => m.id).join(', ')}. ` +
      `Speech models (audio and video): ${WHISPER_MODELS.map((m) => m.name).join(', ')}. ` +
      `Any other sentence-transformers or cross-encoder folder: kb models import DIR --as NAME; an Ollama model: kb models use ollama:NAME.`,
  );
}

const NETWORK_CODES = new Set(['UNREADABLE', 'NOT_FOUND', 'TIMEOUT']);

/** Where models are downloaded from: models.hub_endpoint, and the variable that set it, if one did. */
export interface Hub {
  url: string;
  setBy?: string | undefined;
}

function hubFailure(e: unknown, how: string, hub: Hub): unknown {
  if (!(e instanceof KbError) || !NETWORK_CODES.has(e.code)) return e;
  const endpoint = hub.url.replace(/\/+$/, '');
  const mirror = hub.setBy ? `${hub.setBy} is ${endpoint}` : 'Behind a mirror, set KB_HF_ENDPOINT (or models.hub_endpoint) to it';
  return new KbError(e.code, `${e.message}. ${mirror}. Without internet here: ${how}`, { cause: e });
}

/** An embedding model's download failed: how to get its files by hand and import them. */
export function embeddingPullFailed(e: unknown, spec: HubModel, hub: Hub): unknown {
  const files = spec.files.filter((f) => !f.optional).map((f) => f.path);
  return hubFailure(
    e,
    `on a machine with internet, download ${files.join(', ')} from https://huggingface.co/${spec.repo} into one folder ` +
      `(keep onnx/ as a subfolder), copy it here and run: kb models import FOLDER --as ${spec.id}`,
    hub,
  );
}

/** A speech model's download failed: the one file to get by hand and import. */
export function speechPullFailed(e: unknown, spec: WhisperSpec, hub: Hub): unknown {
  return hubFailure(
    e,
    `on a machine with internet, download https://huggingface.co/${WHISPER_REPO}/resolve/main/${spec.file}, copy it here and run: kb models import ${spec.file}`,
    hub,
  );
}
