// tesseract.js's own worker thread, with its console silenced. Leptonica and libpng print notes and
// errors from inside the wasm ("libpng error: Read Error", "Error in pixReadStreamPng") straight to
// the terminal; the failure itself still rejects recognize(), and kb reports it as that file's error.
// Plain CommonJS, not bundled: tesseract.js starts it by path (createWorker's workerPath).
'use strict';
const quiet = () => undefined;
for (const k of ['log', 'info', 'warn', 'error', 'debug', 'trace']) console[k] = quiet;
require('tesseract.js/src/worker-script/node/index.js');
