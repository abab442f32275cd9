// The engine's words are written for the command line ("run: kb models pull X"); in the app the same
// next step is a view and a button. This table is the one place that maps one onto the other; a step
// with no button stays a command and says it is one for a terminal.

const STEPS: [RegExp, string][] = [
  // Models: get, import, remove, use.
  [/run:? kb models pull (\S+?) \(or kb models import (?:FILE|DIR|FOLDER)\)/g, 'get $1 under Models (or import a model file there)'],
  [/\(kb models pull (\S+?), or kb models import (?:FILE|DIR|FOLDER)\)/g, '(get $1 under Models, or import one there)'],
  [/run:? kb models pull (\S+?)(?=[\s,;.)]|$)/g, 'get $1 under Models'],
  [/\(kb models remove (\S+?), then pull it again\)/g, '(Remove $1 under Models, then Get it again)'],
  [
    /copy it here and run: kb models import (?:\S+?) --as (\S+)/g,
    'copy it to this machine and import it under Models › Import a model, as $1',
  ],
  [/copy it here and run: kb models import \S+/g, 'copy it to this machine and import it under Models › Import a model'],
  [/kb models import DIR --as NAME/g, 'import it under Models › Import a model, with a name of its own'],
  [/kb models use ollama:NAME/g, 'Models › Use from Ollama'],
  // Settings that have a field: the field, not the config key or the variable.
  [/\(or point KB_OLLAMA_HOST \/ ask\.ollama_host at it\)/g, '(or set its address under Settings)'],
  [/, or set KB_OLLAMA_HOST \/ ask\.ollama_host to where it runs/g, ', or set its address under Settings to where it runs'],
  [/or set ask\.ollama_host \/ KB_OLLAMA_HOST/g, 'or set its address under Settings'],
  [/ \(audio\.ffmpeg_path\)/g, ' (Settings › ffmpeg)'],
  [/, or set audio\.ffmpeg_path/g, ', or give its path under Settings › ffmpeg'],
  [/set KB_HF_ENDPOINT \(or models\.hub_endpoint\) to it/g, 'set it under Settings › Model hub'],
  // A folder of thousands of files: the app asks itself.
  [/: add it again saying yes \(kb add --yes\) if you mean all of them, or choose a smaller folder/g, '.'],
  // A refused call names its method for the command line ("models.import: as: …"): the app's field says it.
  [/^[a-z]+(?:\.[a-z]+)+: (?:as|name|path): /g, ''],
  // The index itself.
  [/kb doctor --fix reads them; kb gc deletes them/g, 'Repair (Status) reads them; Reclaim space deletes them'],
  [/\(kb doctor --fix does it now\)/g, '(Repair, under Status, does it now)'],
  [/\(kb ls says why\)/g, '(the Library says why)'],
  [/kb ls says which/g, 'the Library says which'],
  [/add (\S+) to ocr\.languages(?: \(Settings\))?/g, 'tick $1 under Settings › OCR languages'],
  [/\(run: kb reindex, or any ingest, to bring them in step\)/g, '(Re-index all in the Library brings them in step)'],
  [/kb ask shows sources only/g, 'Ask shows sources only'],
  [/kb does it while the app, kb serve or kb watch runs, or at the next kb ingest/g, 'kb is doing it now'],
  [/read while the app, kb serve or kb watch runs, or by the next kb ingest/g, 'kb is reading them now'],
  // No button for these: they are for a terminal, and say so.
  [/\(run: (ollama pull \S+?)\)/g, '(in a terminal: $1)'],
  [/run (npm install \S+) in the kb folder/g, 'in a terminal, run $1 in the kb folder'],
  [/: (sudo apt install ffmpeg|brew install ffmpeg|winget install ffmpeg)/g, ': in a terminal, $1'],
];

/** An engine message as the app says it. */
export function inApp(text: string): string;
export function inApp(text: string | null | undefined): string | null;
export function inApp(text: string | null | undefined): string | null {
  if (text == null) return null;
  return STEPS.reduce((t, [from, to]) => t.replace(from, to), text);
}
