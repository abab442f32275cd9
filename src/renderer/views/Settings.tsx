// The Settings view: the language model kb asks (Ollama's host, and its model from the server's own
// list), how many passages it reads, OCR languages (those installed here), the theme, the editor links
// open in, and where the data lives. Each change is checked and written to config.yaml by the engine
// (comments kept), which says whether it is in effect now or after a restart.
import { useState } from 'react';
import type { KbBridge } from '../../shared/api';
import type { SettingKey, Settings as SettingsData } from '../../shared/settings';
import { inApp } from '../lib/in-app';
import { TeamServer } from './TeamServer';

export function Settings({ kb, settings, onChanged }: { kb: KbBridge; settings: SettingsData | null; onChanged: () => void }) {
  const [notes, setNotes] = useState<Partial<Record<SettingKey, { ok: boolean; text: string }>>>({});
  if (!settings)
    return (
      <section className="page" aria-label="Settings">
        <p className="hint">Loading…</p>
      </section>
    );
  // A team server tells its readers and editors nothing of its settings (no file, no paths): its admin's.
  if (!settings.config_file)
    return (
      <section className="page settings" aria-label="Settings">
        <h2>Settings</h2>
        <p className="hint">This server&apos;s settings are its admin&apos;s: ask them to change how it searches, reads or answers.</p>
      </section>
    );
  const v = settings.values;
  /** Saves one setting and says what happened beside it; resolves to the value now in the file (null: refused). */
  const save = async (key: SettingKey, value: string | number | boolean): Promise<string | null> => {
    try {
      const r = await kb['settings.set']({ key, value });
      setNotes((n) => ({ ...n, [key]: { ok: true, text: r.note } }));
      onChanged();
      return String(r.value);
    } catch (e) {
      setNotes((n) => ({ ...n, [key]: { ok: false, text: (e as Error).message } }));
      return null;
    }
  };
  const refused = (key: SettingKey): boolean => notes[key]?.ok === false;
  const note = (key: SettingKey) => {
    const n = notes[key];
    const env = settings.overridden[key];
    return (
      <>
        {env && <span className="hint">set by {env} in kb’s environment</span>}
        {n && (
          <span className={n.ok ? 'note' : 'error'} role={n.ok ? 'status' : 'alert'} data-note={key}>
            {inApp(n.text)}
          </span>
        )}
      </>
    );
  };
  const o = settings.ollama;
  const langs = String(v['ocr.languages'] ?? 'eng').split('+');
  return (
    <section className="page settings" aria-label="Settings">
      <h2>Settings</h2>
      <h3>Answers (Ollama)</h3>
      <p className={o.reachable && o.model_pulled ? 'note' : 'warn'} data-ollama={o.reachable ? 'up' : 'down'}>
        {inApp(o.detail)}
      </p>
      <div className="form">
        <label>
          Ollama address
          <TextSetting
            value={String(v['ask.ollama_host'] ?? '')}
            label="Ollama address"
            refused={refused('ask.ollama_host')}
            onSave={(s) => save('ask.ollama_host', s)}
          />
        </label>
        {note('ask.ollama_host')}
        <label>
          Model
          {o.models.length > 0 ? (
            <select aria-label="Ollama model" value={String(v['ask.model'] ?? '')} onChange={(e) => void save('ask.model', e.target.value)}>
              {!o.models.includes(String(v['ask.model'])) && (
                <option value={String(v['ask.model'])}>{String(v['ask.model'])} (not pulled)</option>
              )}
              {o.models.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          ) : (
            <TextSetting
              value={String(v['ask.model'] ?? '')}
              label="Ollama model"
              refused={refused('ask.model')}
              onSave={(s) => save('ask.model', s)}
            />
          )}
        </label>
        {note('ask.model')}
        <label>
          Passages read per question
          <TextSetting
            type="number"
            value={String(v['ask.top'] ?? 8)}
            label="Passages per question"
            refused={refused('ask.top')}
            onSave={(s) => save('ask.top', s === '' ? '' : /^\d+$/.test(s) ? Number(s) : s)}
          />
        </label>
        {note('ask.top')}
      </div>
      <h3>Search</h3>
      <div className="form">
        <label className="check">
          <input
            type="checkbox"
            aria-label="Rerank results"
            checked={v['search.rerank'] === true}
            onChange={(e) => void save('search.rerank', e.target.checked)}
          />{' '}
          Rerank the best hits with a cross-encoder ({String(v['rerank.model'] ?? '')}) once typing pauses
        </label>
        {note('search.rerank')}
        <p className="hint">
          Needs the reranker: get it under Models. It reads each of the best 30 hits with the query, ~100 ms a search on this kind of
          machine.
        </p>
      </div>
      <h3>Reading scans and photos (OCR)</h3>
      <div className="form">
        <fieldset aria-label="OCR languages">
          {settings.ocr_languages_installed.map((code) => (
            <label key={code} className="check">
              <input
                type="checkbox"
                checked={langs.includes(code)}
                onChange={(e) => {
                  const next = e.target.checked ? [...langs, code] : langs.filter((l) => l !== code);
                  if (next.length > 0) void save('ocr.languages', next.join('+'));
                }}
              />{' '}
              {code}
            </label>
          ))}
        </fieldset>
        {note('ocr.languages')}
        <p className="hint">
          Installed here: {settings.ocr_languages_installed.join(', ') || 'none'}. More: Debian’s <code>tesseract-ocr-&lt;code&gt;</code>{' '}
          packages (e.g. tesseract-ocr-chi-sim), or <code>npm install @tesseract.js-data/&lt;code&gt;</code> in kb’s folder.
        </p>
      </div>
      <h3>Appearance and links</h3>
      <div className="form">
        <label>
          Theme
          <select aria-label="Theme" value={String(v['ui.theme'] ?? 'system')} onChange={(e) => void save('ui.theme', e.target.value)}>
            <option value="system">as the system</option>
            <option value="light">light</option>
            <option value="dark">dark</option>
          </select>
        </label>
        {note('ui.theme')}
        <label>
          Open in editor
          <TextSetting
            value={String(v['ui.editor_uri'] ?? '')}
            label="Editor link"
            refused={refused('ui.editor_uri')}
            onSave={(s) => save('ui.editor_uri', s)}
          />
        </label>
        {note('ui.editor_uri')}
        <p className="hint">
          {'{path}'} and {'{line}'} are filled in:{' '}
          <code>
            vscode://file/{'{path}'}:{'{line}'}
          </code>
          ,{' '}
          <code>
            idea://open?file={'{path}'}&amp;line={'{line}'}
          </code>
          ,{' '}
          <code>
            subl://open?url=file://{'{path}'}&amp;line={'{line}'}
          </code>
          .
        </p>
      </div>
      {kb.app && (
        <>
          <h3>Updates</h3>
          <div className="form">
            <label className="check">
              <input
                type="checkbox"
                aria-label="Look for updates"
                checked={v['ui.updates'] !== false}
                onChange={(e) => void save('ui.updates', e.target.checked)}
              />{' '}
              Look for a new version once a day, download it in the background, and ask before restarting into it
            </label>
            {note('ui.updates')}
          </div>
        </>
      )}
      <h3>Audio and models</h3>
      <div className="form">
        <label>
          ffmpeg
          <TextSetting
            value={String(v['audio.ffmpeg_path'] ?? '')}
            label="ffmpeg"
            refused={refused('audio.ffmpeg_path')}
            onSave={(s) => save('audio.ffmpeg_path', s)}
          />
        </label>
        {note('audio.ffmpeg_path')}
        <p className="hint">Empty: the ffmpeg on the PATH. kb decodes recordings and videos with it.</p>
        <label>
          Model hub
          <TextSetting
            value={String(v['models.hub_endpoint'] ?? '')}
            label="Model hub"
            refused={refused('models.hub_endpoint')}
            onSave={(s) => save('models.hub_endpoint', s)}
          />
        </label>
        {note('models.hub_endpoint')}
        <p className="hint">Where Models › Get downloads from: the hub, or a mirror of it.</p>
      </div>
      <TeamServer kb={kb} onChanged={onChanged} />
      {/* A team server tells its readers and editors none of its paths. */}
      {settings.data_dir && (
        <>
          <h3>Data</h3>
          <p>
            Everything kb keeps is in <code data-testid="data-dir">{settings.data_dir}</code>; settings are in{' '}
            <code>{settings.config_file}</code>.
            {kb.app && (
              <>
                {' '}
                <button onClick={() => void kb.app!.revealDataDir()}>Show in folder</button>
              </>
            )}
          </p>
          <p className="hint">The data folder is chosen with --data-dir, KB_DATA_DIR or data_dir in the global config, before kb starts.</p>
        </>
      )}
      {settings.restart_needed.length > 0 && (
        <p className="warn">Restart the app (or kb serve) to apply: {settings.restart_needed.join(', ')}.</p>
      )}
    </section>
  );
}

/**
 * A setting typed in, saved when it loses focus or on Enter, not per keystroke. Emptied, it is sent
 * empty: the engine puts the default back and says so. It shows the value in effect after each save.
 */
function TextSetting({
  value,
  label,
  onSave,
  type = 'text',
  refused = false,
}: {
  value: string;
  label: string;
  onSave: (v: string) => Promise<string | null>;
  type?: 'text' | 'number';
  /** Its last save was refused (the note beside it says why). */
  refused?: boolean;
}) {
  const [text, setText] = useState(value);
  // A new value from outside (saved, or put back to the default) replaces what the box holds.
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    setShown(value);
    setText(value);
  }
  const commit = (): void => {
    // A refused value stays in the box beside its error, to be corrected; a saved one shows as saved.
    // The value in effect typed back after a refusal is saved again too, so its "Not saved" goes.
    if (text.trim() !== value || refused) void onSave(text.trim()).then((saved) => saved !== null && setText(saved));
  };
  return (
    <input
      aria-label={label}
      // A number box as text: a browser's number input turns "abc" into "", which would clear the
      // setting to its default; as text, "abc" reaches the engine and is refused, saying why.
      type="text"
      inputMode={type === 'number' ? 'numeric' : undefined}
      value={text}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit();
      }}
    />
  );
}
