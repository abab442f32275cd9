// `kb`: the command line. Each command is a thin shell over the engine facade.
import { Command, CommanderError, Option } from 'commander';
import { KbError } from '../shared/errors.js';
import { DOC_TYPES, SEARCH_MODES } from '../shared/wire.js';
import { askCommand } from './commands/ask.js';
import { getCommand, statusCommand } from './commands/get.js';
import { addCommand, collectionsCommand, forgetCommand, watchCommand } from './commands/collections.js';
import {
  auditCommand,
  grantCommand,
  grantServerCommand,
  usersAddCommand,
  usersListCommand,
  usersRemoveCommand,
  usersTokenCommand,
} from './commands/users.js';
import { doctorCommand, gcCommand, initCommand, inspectCommand, lsCommand, migrateCommand, removeCommand } from './commands/documents.js';
import { evalCompareCommand, evalRunCommand } from './commands/eval.js';
import { ingestCommand } from './commands/ingest.js';
import { modelsImportCommand, modelsListCommand, modelsPullCommand, modelsRemoveCommand, modelsUseCommand } from './commands/models.js';
import { reindexCommand } from './commands/reindex.js';
import { type SearchFlags, searchCommand } from './commands/search.js';
import { type ServeFlags, serveCommand } from './commands/serve.js';
import { logsCommand } from './commands/logs.js';
import { aNumber, wholeNumber } from './flags.js';
import type { GlobalOptions } from './context.js';
import { EXIT, reportError } from './output.js';
import { FUSIONS } from '../shared/fusions.js';
import { KB_VERSION } from '../worker/index.js';

export async function main(argv: string[]): Promise<number> {
  // `kb ls | head`: the reader has gone, which is not an error of kb's.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(EXIT.ok);
    throw e;
  });
  let exitCode: number = EXIT.ok;
  const program = new Command('kb')
    .description(
      'kb — a local-first knowledge base: find passages in your notes, code, PDFs, scans and recordings, each citing its exact span',
    )
    .version(KB_VERSION)
    .option('--data-dir <dir>', 'where the index lives (env KB_DATA_DIR; default ~/.local/share/kb)')
    .option('--store <url>', 'a PostgreSQL database to keep the index in, postgresql://user@host/db (env KB_STORE; store.url)')
    .option('--server <url>', "a team's kb server to use instead of this machine's index (env KB_SERVER)")
    .option('--token <token>', 'your token on that server, from its admin (env KB_TOKEN)')
    .option('--json', 'machine-readable output (schema_version 1)')
    .showHelpAfterError('(run kb --help for usage)')
    .exitOverride();

  const globals = (): GlobalOptions => {
    const g = program.opts<GlobalOptions>();
    const server = g.server ?? process.env.KB_SERVER;
    const token = g.token ?? process.env.KB_TOKEN;
    return { ...g, ...(server ? { server } : {}), ...(token ? { token } : {}) };
  };
  const run = (fn: () => Promise<number>) => async () => {
    exitCode = await fn();
  };
  /** A command with no arguments or options of its own. */
  const simple = (name: string, description: string, fn: (g: GlobalOptions) => Promise<number>, parent = program): void => {
    parent
      .command(name)
      .description(description)
      .action(() => run(() => fn(globals()))());
  };
  /** A command that takes one argument and no options. */
  const oneArg = (
    name: string,
    description: string,
    arg: [string, string?],
    fn: (a: string, g: GlobalOptions) => Promise<number>,
    parent = program,
  ): Command =>
    parent
      .command(name)
      .description(description)
      .argument(...arg)
      .action((a: string) => run(() => fn(a, globals()))());

  program
    .command('init')
    .description('write a commented default config.yaml into the data dir')
    .option('--force', 'overwrite an existing config')
    .action((flags: { force?: boolean }) => run(() => initCommand(flags, globals()))());

  program
    .command('ingest')
    .description(
      'index files and folders once: Markdown, notes, code, PDFs, images and scans (OCR), audio and video; unchanged files are skipped',
    )
    .argument('<paths...>', 'files or folders')
    .option('--tags <a,b>', 'tags to add to every document')
    .option('--force', 'read every file again, even those indexed already and unchanged (after changing OCR languages, say)')
    .option('--collection <name>', "copy the files into this collection's folder and index them there (with --server: uploaded to it)")
    .action((paths: string[], flags: { tags?: string; force?: boolean; collection?: string }) =>
      run(() => ingestCommand(paths, flags, globals()))(),
    );

  program
    .command('search')
    .description('find passages by words and meaning; every hit cites its exact span (lines, page, time, region)')
    .argument('<query...>', 'words, "a phrase", or \'a raw FTS5 expression\'')
    .addOption(new Option('--mode <mode>', 'hybrid, lexical or vector').choices([...SEARCH_MODES]))
    .addOption(new Option('--top <n>', 'how many hits (default 10, at most 1000)').argParser(wholeNumber(1)))
    .option('--tags <a,b>', 'only documents carrying all these tags')
    .addOption(new Option('--type <type>', 'only this document type').choices([...DOC_TYPES]))
    .option('--path <glob>', 'only paths matching this glob (* stays within a folder, ** crosses folders)')
    .option('--lang <code>', 'only documents in this language (en, ko, …) or programming language')
    .addOption(new Option('--threshold <score>', 'drop hits scoring below this').argParser(aNumber))
    .addOption(new Option('--fusion <how>', 'hybrid: how words and meaning combine (adaptive, the default; rrf; convex)').choices(FUSIONS))
    .option('--explain', 'show how each hit was ranked')
    .option('--rerank', 're-score the best hits with the cross-encoder (rerank.model; search.rerank turns it on by default)')
    .option('--no-rerank', 'fused order, whatever search.rerank says')
    .option('--prefix', 'treat the last word as a prefix (search-as-you-type)')
    .option('--no-correct', 'search the words as typed: no correction of words the index does not hold')
    .action((words: string[], flags: SearchFlags) => run(() => searchCommand(words, flags, globals()))());

  program
    .command('mcp')
    .description('serve kb to LLM tools over the Model Context Protocol (stdio): search, get, ask, status')
    .action(() => run(async () => (await import('./commands/mcp.js')).mcpCommand(globals(), KB_VERSION))());

  program
    .command('logs')
    .description("where kb's log files are (one per process: worker, serve, cli, main) and their last lines")
    .addOption(new Option('-n, --lines <n>', 'lines per file (default 20)').argParser(wholeNumber(1)))
    .action((flags: { lines?: number }) => run(() => logsCommand(flags, globals()))());

  simple('status', 'what the index holds, its collections, and which models are there', statusCommand);

  program
    .command('get')
    .description(
      'print a cited span: notes.md#L12-L34, paper.pdf#page=3, talk.mp3#t=10,20, report.docx#para=12-18, deck.pptx#slide=7, data.csv#row=12-40 (a file:// URI, a path or a doc id)',
    )
    .argument('<target>')
    .addOption(new Option('--max <chars>', 'cap on the characters printed (default 20000)').argParser(wholeNumber(1)))
    .action((target: string, flags: { max?: number }) => run(() => getCommand(target, flags, globals()))());

  program
    .command('add')
    .description('add a folder as a collection: indexed now, kept in sync while the app, kb serve or kb watch runs')
    .argument('<folder>')
    .option('--name <name>', "the collection's name (default: the folder's)")
    .option('--tags <a,b>', 'tags for every document in it')
    .option('--glob <glob>', "only files matching this glob, e.g. '**/*.md'")
    .option('--yes', 'read it even when it holds more than 5,000 files (refused without, saying how many)')
    .action((folder: string, flags: { name?: string; tags?: string; glob?: string; yes?: boolean }) =>
      run(() => addCommand(folder, flags, globals()))(),
    );

  const collections = program.command('collections').description('the collections (folders kept in sync), and who may read them');
  simple('list', 'list the collections', collectionsCommand, collections);
  for (const kind of ['grant', 'revoke'] as const) {
    collections
      .command(kind)
      .description(kind === 'grant' ? 'let a user (or @all, everyone) read a collection (a shared store)' : 'take a grant back')
      .argument('<collection>')
      .argument('<user>', 'a user name, or @all')
      .action((c: string, u: string) => run(() => grantCommand(kind, c, u, globals()))());
  }
  collections.action(() => run(() => collectionsCommand(globals()))());

  const users = program
    .command('users')
    .description("a team's accounts on a shared store (PostgreSQL), run with the database's own credentials");
  users
    .command('add')
    .description('add a user and print their token (once)')
    .argument('<name>')
    .addOption(new Option('--role <role>', 'what they may do (default reader)').choices(['admin', 'editor', 'reader']))
    .action((name: string, flags: { role?: 'admin' | 'editor' | 'reader' }) => run(() => usersAddCommand(name, flags, globals()))());
  simple('list', 'the users, their roles, and what they may read', usersListCommand, users);
  oneArg('remove', 'remove a user: their token stops working at once', ['<name>'], usersRemoveCommand, users);
  oneArg('token', 'give a user a new token (the old one stops working)', ['<name>'], usersTokenCommand, users);

  program
    .command('audit')
    .description('who changed users, grants and collections (a shared store)')
    .addOption(new Option('--limit <n>', 'how many, newest first (default 100)').argParser(wholeNumber(1, 10_000)))
    .action((flags: { limit?: number }) => run(() => auditCommand(flags, globals()))());

  oneArg(
    'grant-server',
    "as the owner of kb's tables (--store with its credentials): bring the schema up to date, and let ROLE — the one kb serve connects as — read and write kb's rows, owning nothing",
    ['<role>', 'the PostgreSQL role a team server connects as'],
    grantServerCommand,
  );

  oneArg('forget', 'stop syncing a collection and remove its documents from the index (the files stay)', ['<name>'], forgetCommand);

  simple('watch', 'keep every collection in sync with its folder until Ctrl-C', watchCommand);

  program
    .command('ask')
    .description('answer a question from your documents through a local Ollama model, citing its sources')
    .argument('<question...>', 'the question')
    .addOption(new Option('--top <k>', 'how many passages to retrieve (default: ask.top, 8)').argParser(wholeNumber(1, 50)))
    .action((words: string[], flags: { top?: number }) => run(() => askCommand(words, flags, globals()))());

  program
    .command('tui')
    .description('search as you type in the terminal: hits, the cited span, Enter opens it in $EDITOR at the line')
    .argument('[query...]', 'start with this query')
    .action((words: string[]) => run(async () => (await import('./commands/tui.js')).tuiCommand(words, globals()))());

  simple('ls', 'list documents: indexed, waiting (for a speech model or OCR) or failed, and why', lsCommand);

  program
    .command('inspect')
    .description('show the raw records of a document or a chunk')
    .argument('<what>', 'doc or chunk')
    .argument('<id>', 'document id or path, or chunk id')
    .action((what: string, id: string) => run(() => inspectCommand(what, id, globals()))());

  oneArg(
    'remove',
    'remove a document (by path or id), or every document under a folder',
    ['<target>', 'path or document id'],
    removeCommand,
  ).alias('rm');

  simple('gc', 'delete stored originals that no document refers to', gcCommand);

  program
    .command('migrate')
    .description(
      "copy this data dir's index (documents, passages, vectors, tags, collections, originals) into a PostgreSQL database; resumes",
    )
    .requiredOption('--to <url>', 'the database: postgresql://user@host:port/db')
    .action((flags: { to: string }) => run(() => migrateCommand(flags, globals()))());

  program
    .command('doctor')
    .description('check the config, data dir, database, word and vector indexes, models, ffmpeg and Ollama')
    .option('--fix', 'rebuild what can be rebuilt: the word indexes from the chunks, a lost vector table, unused stored copies')
    .action((flags: { fix?: boolean }) => run(() => doctorCommand(globals(), flags))());

  program
    .command('serve')
    .description(
      "serve the kb UI and its API on 127.0.0.1 (prints the URL, access token included); with --store, a team's users sign in with their own tokens",
    )
    .addOption(new Option('--port <n>', 'port to listen on (default 0: any free port)').argParser(wholeNumber(0, 65535)))
    .option('--host <address>', 'address to listen on (default 127.0.0.1; another needs a TLS proxy in front, or --insecure)')
    .option('--public-url <url>', 'the https:// address people reach it by through a proxy (serve.public_url)')
    .option('--insecure', 'listen on an address other machines reach with no TLS in front (a network you trust)')
    .action((flags: ServeFlags) => run(() => serveCommand(flags, globals()))());

  program
    .command('reindex')
    .description('embed every chunk again (with --model, switch to that model); searches use the old vectors until it is done')
    .option('--model <name>', 'the embedding model to switch to (default: the configured one); kb models use does the same')
    .action((flags: { model?: string }) => run(() => reindexCommand(flags, globals()))());

  const models = program
    .command('models')
    .description('embedding models (search by meaning) and speech models (audio): list, pull, import, remove');
  simple('list', 'the models kb knows, and which are installed', modelsListCommand, models);
  oneArg(
    'pull',
    'download a model from the Hugging Face hub (or the mirror in KB_HF_ENDPOINT); resumes',
    ['<name>', 'e.g. all-MiniLM-L6-v2, or a speech model: whisper-base.en, whisper-small'],
    modelsPullCommand,
    models,
  );
  models
    .command('import')
    .description('install a model: a folder in the Hugging Face layout (embedding), or a whisper.cpp .bin file (speech)')
    .argument('<path>')
    .option(
      '--as <name>',
      'a registry model it is (default: the configured one), or a name of its own for any sentence-transformers or cross-encoder folder; a speech model is known by its checksum, or name it whisper-…',
    )
    .action((dir: string, flags: { as?: string }) => run(() => modelsImportCommand(dir, flags, globals()))());
  oneArg('remove', 'delete an installed model', ['<name>'], modelsRemoveCommand, models);
  oneArg(
    'use',
    'search by meaning with this model (re-embeds everything, searches answering meanwhile), or rerank with it',
    ['<name>', 'an embedding model (all-MiniLM-L6-v2, one imported, ollama:nomic-embed-text) or a reranker (ms-marco-MiniLM-L-6-v2)'],
    modelsUseCommand,
    models,
  );

  const evalCmd = program.command('eval').description('measure retrieval quality against golden queries');
  evalCmd
    .command('run')
    .description('run golden queries (JSONL) and report recall@k, MRR and nDCG@10')
    .argument('<file>', 'JSONL: {"query": …, "expected_paths": […], "expected_strings": […]}')
    .addOption(new Option('--k <n>', 'cut-off for recall (default 10)').argParser(wholeNumber(1)))
    .addOption(new Option('--mode <mode>', 'search mode').choices([...SEARCH_MODES]))
    .option('--out <file>', 'save the run as JSON for kb eval compare')
    .action((file: string, flags: { k?: number; mode?: string; out?: string }) => run(() => evalRunCommand(file, flags, globals()))());
  evalCmd
    .command('compare')
    .description('show the difference between two saved runs')
    .argument('<a>')
    .argument('<b>')
    .action((a: string, b: string) => run(() => evalCompareCommand(a, b, globals()))());

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0) return EXIT.ok;
      if (argv.includes('--json')) reportError(new KbError('INVALID_ARGUMENT', e.message.replace(/^error: /, '')), true);
      return EXIT.usage;
    }
    return reportError(e, argv.includes('--json'));
  }
  return exitCode;
}
