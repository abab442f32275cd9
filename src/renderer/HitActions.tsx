// What a hit offers besides opening it here: its citation copied as a URI or as a Markdown link, the
// cited line in the user's editor (ui.editor_uri), and in the desktop app the file in its own app or
// its folder.
import { useState } from 'react';
import type { KbBridge } from '../shared/api';
import type { SearchHit } from '../shared/wire';
import { copyText } from './lib/clipboard';
import { editorUri } from './lib/editor-uri';
import { citationShown, droppedAs } from './lib/shown-path';

export function HitActions({ hit, kb, editor }: { hit: SearchHit; kb: KbBridge; editor: string }) {
  const [said, setSaid] = useState<string | null>(null);
  const c = hit.citation;
  const copy = (text: string, what: string): void => {
    void copyText(text).then(
      () => setSaid(`Copied ${what}`),
      () => setSaid('Could not copy'),
    );
  };
  const line = c.kind === 'lines' ? c.start : 1;
  const cited = citationShown(c.uri, c.path);
  const dropped = droppedAs(c.path) !== null;
  const link = editorUri(editor, c.path, line, c.kind === 'lines' ? c.col_start : undefined);
  const textual = hit.source.type === 'markdown' || hit.source.type === 'note' || hit.source.type === 'code';
  return (
    <div className="hit-actions" role="toolbar" aria-label="Hit actions">
      <button
        onClick={() =>
          copy(cited, dropped ? 'the citation, by the file’s path in the drop (a browser does not say where it lives)' : 'the citation')
        }
      >
        Copy citation
      </button>
      <button onClick={() => copy(`[${c.label ?? hit.source.title}](${cited})`, 'a Markdown link')}>Copy as Markdown link</button>
      {/* No editor (''): a team's user, whose files are on the server, not on their machine. */}
      {textual && !hit.from && editor !== '' && (
        <a
          className="button"
          href={link}
          onClick={(e) => {
            if (!kb.app) return; // a browser hands the link to the editor that registered its scheme
            e.preventDefault();
            void kb.app.openUri(link).catch((err: Error) => setSaid(err.message));
          }}
        >
          Open in editor
        </a>
      )}
      {kb.app ? (
        <>
          <button onClick={() => void kb.app!.openDocument(hit.doc_id, 'open').catch((err: Error) => setSaid(err.message))}>
            Open in its app
          </button>
          <button onClick={() => void kb.app!.openDocument(hit.doc_id, 'reveal').catch((err: Error) => setSaid(err.message))}>
            Show in folder
          </button>
        </>
      ) : (
        <a className="button" href={kb.docUrl(hit.doc_id)} target="_blank" rel="noreferrer">
          Open the file
        </a>
      )}
      {said && (
        <span className="note" role="status">
          {said}
        </span>
      )}
    </div>
  );
}
