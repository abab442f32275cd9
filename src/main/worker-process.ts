// The worker as an Electron utilityProcess, seen by the shared Supervisor as a WorkerHandle. Electron's
// fork is passed in, so this adapter (and the supervision around it) runs in tests under plain Node.
import type { ClientMessage } from '../shared/api.js';
import type { WorkerHandle } from '../shared/supervisor.js';

/** The part of Electron's UtilityProcess this uses. */
export interface UtilityProcessLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
}

export type ForkUtility = (modulePath: string, args: string[], options: { serviceName: string; stdio: 'inherit' }) => UtilityProcessLike;

export function utilityWorker(fork: ForkUtility, modulePath: string, dataDir: string | null): WorkerHandle {
  const child = fork(modulePath, dataDir ? ['--data-dir', dataDir] : [], { serviceName: 'kb engine', stdio: 'inherit' });
  return {
    send: (m: ClientMessage) => child.postMessage(m),
    onMessage: (h) => void child.on('message', h),
    onExit: (h) => void child.on('exit', (code) => h(code)),
    kill: () => void child.kill(),
  };
}
