// The layers of src/, top to bottom: a module imports only from its own folder or from a layer below its
// own; folders that share a layer do not import each other. `npm test` runs this check (type-only imports
// count too) and fails on an upward import, a sideways one, a folder in no layer, or an import cycle.
const LAYERS = [
  ['cli'], //      commands, argv, --help, the progress views
  ['serve', 'ui'], // `gbatch serve` (the OpenAI Batch API over jobs) and `gbatch ui` (the dashboard): only cli imports them
  ['entry'], //    src/index.ts (the library), src/sim-entry.ts (the simulator's package entry): never the CLI
  ['api'], //      the library's functions: runJob, planJob, openJournal
  ['notify', 'sim', 'metrics', 'operate'], // notifications; the simulator; Prometheus metrics; operators' decisions
  ['job'], //      job files, the option table, the journal's location, deadlines, advice
  ['pipeline'], // a run: lanes, pacing, stops, results file, monitor, runners of a job, endings
  ['ingest', 'report'], // manifests into the journal; what the journal says, as tables and HTML
  ['journal', 'manifest', 'gateway'], // the store (SQLite, PostgreSQL); reading manifests; the gateway's client
  ['io'], //       file writes, bounded reads, preflight
  ['core'], //     pure rules: states, money, budget, pricing, reservation, retries
];

const ENTRIES = '^src/(index|sim-entry)[.]ts$';
const folder = (name) => (name === 'entry' ? ENTRIES : `^src/${name}/`);
const anyOf = (names) => names.map(folder).join('|');

const layerRules = LAYERS.flatMap((names, rank) =>
  names.flatMap((name) => {
    const above = LAYERS.slice(0, rank + 1)
      .flat()
      .filter((other) => other !== name);
    if (above.length === 0) return [];
    return {
      name: `layer-${name}`,
      comment: `${name} imports only its own folder and the layers below it: ${
        LAYERS.slice(rank + 1)
          .flat()
          .join(', ') || 'none'
      }`,
      severity: 'error',
      from: { path: folder(name) },
      to: { path: anyOf(above) },
    };
  }),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'An import cycle: two modules that need each other are one concept, or share a third that both should import.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'in-a-layer',
      comment: 'Every module of src/ belongs to a layer: add a new folder to LAYERS in .dependency-cruiser.cjs.',
      severity: 'error',
      from: { path: '^src/', pathNot: anyOf(LAYERS.flat()) },
      to: {},
    },
    ...layerRules,
    {
      name: 'servers-below-entry',
      comment: 'serve and ui build on api, job, pipeline and journal; the library entries are not theirs to import.',
      severity: 'error',
      from: { path: '^src/(serve|ui)/' },
      to: { path: ENTRIES },
    },
    {
      name: 'pipeline-entry',
      comment:
        'The pipeline has one face, src/pipeline/index.ts (and its light part, terms.ts): a module outside src/pipeline imports those, never a path past them.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/pipeline/' },
      to: { path: '^src/pipeline/', pathNot: '^src/pipeline/(index|terms)[.]ts$' },
    },
    {
      name: 'journal-adapters-inside',
      comment: 'Only src/journal names an adapter (sqlite/, postgres/); the rest goes through the journal interface.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/journal/' },
      to: { path: '^src/journal/(sqlite|postgres)/' },
    },
  ],
  options: {
    includeOnly: '^src/',
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
