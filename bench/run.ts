// `npm run bench [-- NAME…]`: the figures each issue must reach, measured the same way every time.
import { benchAsk } from './ask.js';
import { benchAudio } from './audio.js';
import { benchCranfield } from './cranfield.js';
import { benchCrash } from './crash.js';
import { benchEmbed } from './embed.js';
import { benchFormats } from './formats.js';
import { benchFuzz } from './fuzz.js';
import { benchHostile } from './hostile.js';
import { benchHybrid } from './hybrid.js';
import { benchIngest } from './ingest.js';
import { benchLatency } from './latency.js';
import { benchLoad } from './load.js';
import { benchMeaning } from './meaning.js';
import { benchMeaningCost } from './meaning-cost.js';
import { benchMemory } from './memory.js';
import { benchOcr } from './ocr.js';
import { benchOffice } from './office.js';
import { benchPackage } from './package.js';
import { benchPdf } from './pdf.js';
import { benchPdfLayout } from './pdf-layout.js';
import { benchRanking } from './ranking.js';
import { benchRankingPostgres } from './ranking-postgres.js';
import { benchLatencyPostgres } from './latency-postgres.js';
import { benchRerank } from './rerank.js';
import { benchScale } from './scale.js';
import { benchVocabularies } from './vocabularies.js';
import { benchSoak } from './soak.js';
import { benchSpeech } from './speech.js';
import { benchTeam } from './team.js';
import { benchTui } from './tui.js';
import { benchTyping } from './typing.js';
import { benchTypos } from './typos.js';
import { benchUi } from './ui.js';
import { benchWatch } from './watch.js';
import { type BenchResult, storeArg } from './util.js';

const ALL: Record<string, () => Promise<BenchResult>> = {
  cranfield: benchCranfield,
  ranking: benchRanking,
  ingest: benchIngest,
  latency: benchLatency,
  embed: benchEmbed,
  rerank: benchRerank,
  hybrid: benchHybrid,
  memory: benchMemory,
  speech: benchSpeech,
  meaning: benchMeaning,
  'meaning-cost': benchMeaningCost,
  pdf: benchPdf,
  'pdf-layout': benchPdfLayout,
  ocr: benchOcr,
  ui: benchUi,
  tui: benchTui,
  typing: benchTyping,
  typos: benchTypos,
  ask: benchAsk,
  audio: benchAudio,
  watch: benchWatch,
  crash: benchCrash,
  fuzz: benchFuzz,
  formats: benchFormats,
  office: benchOffice,
  load: benchLoad,
  scale: benchScale,
  vocabularies: benchVocabularies,
  team: () => benchTeam(),
  soak: benchSoak,
  hostile: benchHostile,
  package: benchPackage,
};

/** `--store postgres`: the benches measured on the PostgreSQL store instead. */
const ON_POSTGRES: Record<string, () => Promise<BenchResult>> = { ranking: benchRankingPostgres, latency: benchLatencyPostgres };

/** Run only when named: the scale library takes most of an hour to build, the team server twenty minutes, the soak as long, the hostile requests a quarter of an hour, embedding 100k passages with a real model as long; the package is the app's, not the engine's. */
const ON_REQUEST = new Set(['scale', 'team', 'package', 'soak', 'hostile', 'meaning-cost', 'vocabularies']);
/** Flags that take a value: the value is not a bench's name. */
const args = process.argv.slice(2);
const wanted = args.filter((a, i) => !a.startsWith('-') && args[i - 1] !== '--store');
let failed = 0;
const postgres = storeArg() === 'postgres';
const names = wanted.length > 0 ? wanted : Object.keys(postgres ? ON_POSTGRES : ALL).filter((n) => !ON_REQUEST.has(n));
for (const name of names) {
  const fn = postgres ? ON_POSTGRES[name] : ALL[name];
  if (!fn) {
    const have = Object.keys(postgres ? ON_POSTGRES : ALL).join(', ');
    console.error(`unknown benchmark ${name}${postgres ? ' on PostgreSQL' : ''}; have: ${have}`);
    process.exit(2);
  }
  const r = await fn();
  console.log(`\n== ${r.name}`);
  for (const l of r.lines) console.log(`  ${l}`);
  for (const c of r.checks) {
    const ok = c.better === 'higher' ? c.value >= c.target : c.value <= c.target;
    if (!ok) failed++;
    const unit = c.unit ?? '';
    console.log(
      `  ${ok ? 'PASS' : 'FAIL'}  ${c.what}: ${c.value.toFixed(c.value < 10 ? 4 : 1)}${unit} (target ${c.better === 'higher' ? '≥' : '≤'} ${c.target}${unit})`,
    );
  }
}
process.exitCode = failed > 0 ? 1 : 0;
