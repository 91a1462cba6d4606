// The layering rule of docs/architecture.md, "Layering rule": every folder of lib/ (and each of its
// root modules) has one place in LAYERS, and a module imports only its own folder and the layers
// below it: never a layer above, never a neighbour in its own row. `npm run lint:deps` checks it over
// everything that runs (app, components, lib, server, scripts, bench; not the tests);
// tests/unit/architecture.test.ts runs the same rules through dependency-cruiser's API, and also
// fails when a file of lib/ belongs to no layer, so a new folder must be placed before it is used.
//
// Type-only imports count: with tsPreCompilationDeps dependency-cruiser reads the TypeScript
// before its types are erased, so `import type` is an edge like any other (a type-only circle is
// still two modules that cannot be understood apart).

/**
 * The layers, top to bottom. Each row's members are peers that do not import one another; each
 * member is a folder (`lib/api`) or a single module (`lib/config.ts`). What a row may import is
 * everything in the rows below it.
 */
export const LAYERS = [
  { row: "entry points", members: ["app", "server", "scripts", "proxy.ts", "instrumentation.ts"], peersMayImport: true },
  { row: "the dashboard's components", members: ["components"] },
  { row: "the HTTP layer and the start check", members: ["lib/api", "lib/config-check.ts"] },
  { row: "the import", members: ["lib/import"] },
  { row: "what the import and the API hand work to", members: ["lib/mail", "lib/webhooks", "lib/openapi", "lib/demo"] },
  { row: "the leased dispatcher the webhooks and the mail share", members: ["lib/background/leased-dispatcher.ts"] },
  { row: "accounts, sessions, signatures", members: ["lib/auth"] },
  { row: "the data module", members: ["lib/data"] },
  { row: "the runner of every periodic job (the replica monitor of lib/data too)", members: ["lib/background/runner.ts"] },
  { row: "the process: configuration, logs, metrics, server state", members: ["lib/config.ts", "lib/log.ts", "lib/metrics.ts", "lib/server-state.ts"], peersMayImport: true },
  { row: "the dashboard's views as URL state", members: ["lib/url-state"] },
  { row: "request and response schemas", members: ["lib/schemas"] },
  { row: "facts and pure functions", members: ["lib/domain"] },
];

/**
 * Inside lib/data, the four kinds of module, top to bottom (docs/architecture.md, "The data
 * module"): queries and a user's own state read through the import-kept aggregates, which sit on the
 * connections. The migrations sit on the connections and the aggregates; the connection runs them
 * (db.ts), the one edge upwards.
 */
export const DATA_LAYERS = [
  { row: "reads of the API and pages; a user's own things", members: ["lib/data/queries", "lib/data/user-state"] },
  { row: "the schema's history", members: ["lib/data/migrations"] },
  { row: "what the import keeps beside the records", members: ["lib/data/aggregates"] },
  { row: "connections, snapshots, statements, the record writer", members: ["lib/data/connection"] },
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The paths of one member: a folder's files, or exactly one module. */
const pathOf = (member) => (/\.[a-z]+$/.test(member) ? `^${escape(member)}$` : `^${escape(member)}/`);
const anyOf = (members) => (members.length ? `(${members.map(pathOf).join("|")})` : "^$");

/** One rule per member: nothing of the rows above it, nor of its peers. */
function layerRules(layers, prefix, exceptions = {}) {
  return layers.flatMap(({ row, members, peersMayImport }, index) =>
    members.map((member) => {
      const above = layers.slice(0, index).flatMap((layer) => layer.members);
      const peers = peersMayImport ? [] : members.filter((other) => other !== member);
      const allowed = exceptions[member] ?? [];
      return {
        name: `${prefix}:${member}`,
        comment: `${member} (${row}) imports only the rows below it${peersMayImport ? "" : ", not its peers"}.`,
        severity: "error",
        from: { path: pathOf(member) },
        to: { path: anyOf([...above, ...peers]), ...(allowed.length ? { pathNot: anyOf(allowed) } : {}) },
      };
    }),
  );
}

/** @type {import("dependency-cruiser").IConfiguration} */
const config = {
  forbidden: [
    ...layerRules(LAYERS, "layer"),
    // The connection module runs the migrations before anything reads (lib/data/connection/db.ts).
    ...layerRules(DATA_LAYERS, "data", { "lib/data/connection": ["lib/data/migrations/index.ts"] }),
    {
      name: "components-no-database",
      comment: "components/ never reaches the database: it talks to the API, or receives data from a page.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^lib/(data|auth)/" },
    },
    {
      name: "no-tests-in-product",
      comment: "What runs (the application, its commands, the benchmark and its studies) never imports tests/: a test helper may change with the tests.",
      severity: "error",
      from: { path: "^(app|components|lib|server|scripts|bench)/" },
      to: { path: "^tests/" },
    },
    {
      name: "no-circular",
      comment: "No import circles between files of the application or its commands (type-only imports included).",
      severity: "error",
      from: { path: "^(app|components|lib|server|scripts)/" },
      to: { circular: true },
    },
    {
      name: "resolvable",
      comment: "Every import resolves: an import the cruiser cannot follow would leave the rules above blind to it.",
      severity: "error",
      from: { path: "^(app|components|lib|server|scripts)/" },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|\\.next|\\.worker)/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    // The packages' own files are not cruised (doNotFollow), only resolved: Node's conditions.
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    skipAnalysisNotInRules: true,
  },
};

export default config;
