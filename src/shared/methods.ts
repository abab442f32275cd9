// The names of the RPC methods, with no runtime dependencies: the sandboxed preload script needs the
// list (one window.kb function per method) but must stay tiny. api.ts checks it matches the contract.
export const METHOD_NAMES = [
  'status',
  'search',
  'ingest',
  'list',
  'remove',
  'doctor',
  'source',
  'document.open',
  'get',
  'facets',
  'document.view',
  'reindex',
  'ask',
  'index.status',
  'models.list',
  'models.pull',
  'models.import',
  'models.remove',
  'models.use',
  'collections.list',
  'collections.add',
  'collections.forget',
  'settings.get',
  'settings.set',
] as const;
export type MethodName = (typeof METHOD_NAMES)[number];
