// The engine's layers (docs/architecture.md, "Layers inside the engine"), as an ESLint rule in the
// manner of VS Code's code-layering: a module under src/worker may import its own folder, what stands
// before it in its own layer, and every lower layer — never anything above. Written once, here; the
// page's table is checked against it by test/boundaries.test.ts.
import { dirname, relative, resolve, sep } from 'node:path';

/** Lowest first. Within a layer a member may import the members listed before it. */
export const WORKER_LAYERS = [
  {
    layer: 'base',
    members: [
      'config/',
      'log.ts',
      'version.ts',
      'user-path.ts',
      'uploads.ts',
      'threads.ts',
      'thread-priority.ts',
      'ollama.ts',
      'acting.ts',
      'serial-job.ts',
      'search-traffic.ts',
      'turns.ts',
      'words.ts',
    ],
  },
  { layer: 'store', members: ['store/'] },
  { layer: 'core', members: ['core.ts'] },
  { layer: 'models', members: ['embed/', 'audio/'] },
  { layer: 'retrieval', members: ['vectors/', 'rerank/', 'search/'] },
  { layer: 'work', members: ['ingest/', 'ask/'] },
  { layer: 'services', members: ['documents/', 'collections/', 'read/', 'maintenance/', 'models/', 'settings/', 'accounts/', 'link/'] },
  { layer: 'engine', members: ['engine-options.ts', 'engine.ts', 'open-engine.ts'] },
  { layer: 'hosts', members: ['eval/', 'handlers.ts', 'loop.ts', 'main.ts', 'index.ts'] },
];

const WORKER = `src${sep}worker${sep}`;

/** A file's place under src/worker: [layer index, member index], or null outside the worker. */
function rankOf(file, root) {
  const rel = relative(root, file);
  if (!rel.startsWith(WORKER)) return null;
  const inside = rel.slice(WORKER.length).split(sep);
  const name = inside.length > 1 ? `${inside[0]}/` : inside[0].replace(/\.js$/, '.ts');
  for (const [l, { members }] of WORKER_LAYERS.entries()) {
    const m = members.indexOf(name);
    if (m >= 0) return { layer: l, member: m, name };
  }
  return { layer: -1, member: -1, name };
}

const WHY = 'see "Layers inside the engine" in docs/architecture.md';

export const workerLayers = {
  meta: { type: 'problem', schema: [], messages: {} },
  create(context) {
    const root = context.cwd;
    const self = rankOf(context.filename, root);
    if (!self) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = rankOf(resolve(dirname(context.filename), spec), root);
      if (!target || target.name === self.name || self.layer < 0) return;
      if (target.layer < 0) {
        context.report({ node, message: `src/worker/${target.name} is in no layer: give it one in lint/worker-layers.js (${WHY})` });
        return;
      }
      const up = target.layer > self.layer || (target.layer === self.layer && target.member > self.member);
      if (up) {
        const where = (r) => `${r.name} (${WORKER_LAYERS[r.layer].layer})`;
        context.report({
          node,
          message: `${where(self)} may not import ${where(target)}: an import may only run down the engine's layers (${WHY})`,
        });
      }
    };
    return {
      Program(node) {
        if (self.layer < 0)
          context.report({ node, message: `src/worker/${self.name} is in no layer: give it one in lint/worker-layers.js (${WHY})` });
      },
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};
