// The viewer's page for a structured document at a citation fragment (see render.ts); the hosts
// serve it at /doc/<id>/view?at=<fragment> (web) and kb-doc://doc/<id>/view?at=… (desktop).
import { parseCitationUri } from '../../shared/citation.js';
import { KbError } from '../../shared/errors.js';
import type { Anchor } from '../../shared/anchors.js';
import type { DocView } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { documentBlocks } from './doc-blocks.js';
import { documentSource } from './inspect.js';
import { renderBlocks } from './render.js';

export async function viewDocument(core: Core, docId: string, at: string | undefined, q?: string): Promise<DocView> {
  const src = await documentSource(core, docId);
  const doc = await core.store.tables.documents.byId(docId);
  if (!doc) throw new KbError('NOT_FOUND', `no document ${docId}`);
  let anchor: Anchor | null = null;
  if (at) {
    try {
      const { uri: _u, path: _p, ...a } = parseCitationUri(`file:///x#${at}`);
      anchor = a as Anchor;
    } catch {
      throw new KbError('INVALID_ARGUMENT', `#${at} is not a citation fragment`);
    }
  }
  const blocks = await documentBlocks({ file: src.file, path: doc.path }, core.config, true);
  return { html: renderBlocks(blocks, anchor, doc.title, q ?? ''), stale: src.stale };
}
