// Loaded with --import into a process and its threads and children (they inherit it): appends every
// file the process loads or reads to KB_TRACE_LOADS — modules (ES and CommonJS), native addons, and
// data files read through fs (wasm, fonts, language data, schemas). The packaging test runs the built
// worker under it to learn what an installed app must carry.
import { appendFileSync } from 'node:fs';
import fs from 'node:fs';
import threads from 'node:worker_threads';
import Module, { register, syncBuiltinESMExports } from 'node:module';
import { fileURLToPath } from 'node:url';

const out = process.env.KB_TRACE_LOADS;
if (out) {
  const seen = new Set();
  const note = (p) => {
    if (typeof p === 'object' && p instanceof URL) p = p.protocol === 'file:' ? fileURLToPath(p) : null;
    if (typeof p !== 'string' || seen.has(p)) return;
    seen.add(p);
    appendFileSync(out, `${p}\n`);
  };
  const wrap = (obj, name) => {
    const orig = obj[name];
    if (typeof orig !== 'function') return;
    obj[name] = function (p, ...rest) {
      note(p);
      return orig.call(this, p, ...rest);
    };
  };
  for (const f of ['openSync', 'open', 'readFileSync', 'readFile', 'createReadStream']) wrap(fs, f);
  for (const f of ['open', 'readFile']) wrap(fs.promises, f);
  // The worker's threads are started without the parent's flags (worker/threads.ts): each gets this hook too.
  const Worker = threads.Worker;
  const hook = ['--import', import.meta.url];
  threads.Worker = class extends Worker {
    constructor(file, options = {}) {
      super(file, { ...options, execArgv: [...(options.execArgv ?? []), ...hook] });
    }
  };
  syncBuiltinESMExports();
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (...args) {
    const file = resolve.apply(this, args);
    note(file);
    return file;
  };
  const dlopen = process.dlopen;
  process.dlopen = function (module, filename, ...rest) {
    note(filename);
    return dlopen.call(this, module, filename, ...rest);
  };
  register(
    'data:text/javascript,' +
      encodeURIComponent(`
    import { appendFileSync } from 'node:fs';
    import { fileURLToPath } from 'node:url';
    export async function load(url, context, next) {
      if (url.startsWith('file:')) appendFileSync(${JSON.stringify(out)}, fileURLToPath(url) + '\\n');
      return next(url, context);
    }`),
  );
}
