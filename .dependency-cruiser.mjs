// The layering rule of docs/architecture.md, "Layering rule": layers only point down, and no
// import circles. `npm run lint:deps` checks it over everything that runs (app, components, lib,
// server, scripts, bench; not the tests); tests/unit/architecture.test.ts runs the same rules over the
// same paths through dependency-cruiser's API, so that the test suite fails when one breaks.
//
// Type-only imports count: with tsPreCompilationDeps dependency-cruiser reads the TypeScript
// before its types are erased, so `import type` is an edge like any other (a type-only circle is
// still two modules that cannot be understood apart).

/** @type {import("dependency-cruiser").IConfiguration} */
const config = {
  forbidden: [
    {
      name: "data-auth-below-api",
      comment: "lib/data and lib/auth sit below lib/api and the UI: they never import lib/api, components/ or app/.",
      severity: "error",
      from: { path: "^lib/(data|auth)/" },
      to: { path: "^(lib/api|components|app)/" },
    },
    {
      name: "lib-below-ui",
      comment: "lib/ is below the UI: it never imports components/ or app/.",
      severity: "error",
      from: { path: "^lib/" },
      to: { path: "^(components|app)/" },
    },
    {
      name: "domain-alone",
      comment: "lib/domain is the bottom layer: of lib/ it imports only lib/domain.",
      severity: "error",
      from: { path: "^lib/domain/" },
      to: { path: "^lib/", pathNot: "^lib/domain/" },
    },
    {
      name: "schemas-on-domain",
      comment: "lib/schemas sits on lib/domain alone: of lib/ it imports only lib/schemas and lib/domain.",
      severity: "error",
      from: { path: "^lib/schemas/" },
      to: { path: "^lib/", pathNot: "^lib/(schemas|domain)/" },
    },
    {
      name: "components-no-database",
      comment: "components/ never reaches the database: it talks to the API, or receives data from a page.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^lib/data/" },
    },
    {
      name: "tests-apart",
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
