// Electron's utilityProcess.fork, played by Node's child_process.fork: the worker as main starts it,
// for tests under plain Node (main.test.ts, packaging.test.ts).
import { fork } from 'node:child_process';
import type { ForkUtility, UtilityProcessLike } from '../../src/main/worker-process.js';

export function nodeFork(opts: { execArgv?: string[]; env?: NodeJS.ProcessEnv } = {}): ForkUtility {
  return (modulePath, args) => {
    const child = fork(modulePath, args, {
      execArgv: opts.execArgv ?? [],
      env: opts.env ?? process.env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const like: UtilityProcessLike = {
      postMessage: (m) => void child.send(m as object),
      on: (event: 'message' | 'exit', listener: (x: never) => void) => child.on(event, listener as (...a: unknown[]) => void),
      kill: () => child.kill('SIGKILL'),
    };
    return like;
  };
}
