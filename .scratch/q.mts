import { openEngine } from '/work/main/src/worker/index.ts';
const e = await openEngine({ dataDir: '/tmp/typing/data' });
for (const q of process.argv.slice(2)) {
  for (const prefix of [false, true]) {
    const r = await e.search({ query: q, prefix, mode: 'lexical', top: 20 });
    console.log(JSON.stringify(q), prefix ? 'typing' : 'done  ', r.total_matches, r.results.map((h) => h.citation.path.split('/').pop()).join(' '));
  }
}
await e.close();
