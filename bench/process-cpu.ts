// CPU time of process trees, read from /proc (Linux): what a bench's load cost each side — kb serve
// and its worker, the database's server — beside how long its clients waited. Whether a change saved
// work or only moved it shows here, not in latency alone.
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_S = 100;

/** Every process under `root` (itself included), by walking /proc's parent links once. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  for (const queue = [root]; queue.length > 0;) {
    const pid = queue.pop()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** CPU seconds each process of the tree has used so far (user + system, all its threads). */
function used(root: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of tree(root)) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8').slice(0, 4096);
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      out.set(pid, (Number(rest[11]) + Number(rest[12])) / TICKS_PER_S);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Starts counting a tree's CPU; the returned function says how many seconds it used since (processes that ended meanwhile are not counted). */
export function cpuOf(root: number): () => number {
  const before = used(root);
  return () => {
    let s = 0;
    for (const [pid, t] of used(root)) s += t - (before.get(pid) ?? 0);
    return s;
  };
}
