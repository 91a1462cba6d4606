// Bundles the SQLite reader thread (lib/data/connection/sqlite-reader.worker.ts and what it imports), the
// import's parsing thread (lib/import/parse.worker.ts) and the production server (server/main.ts)
// into plain JavaScript files, so that none needs a TypeScript loader at run time. next.config.mjs
// runs it for `next build` and `next dev` (not when the production server loads it);
// `node scripts/build-worker.mjs` too.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

export const WORKER_BUNDLE = ".worker/sqlite-reader.worker.cjs";
export const SERVER_BUNDLE = ".worker/server.cjs";
export const PARSE_WORKER_BUNDLE = ".worker/parse.worker.cjs";

export function buildWorker(root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")) {
  buildSync({
    absWorkingDir: root,
    entryPoints: ["lib/data/connection/sqlite-reader.worker.ts"],
    outfile: WORKER_BUNDLE,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    external: ["better-sqlite3"],
    logLevel: "warning",
  });
  // The import's parsing thread as a server's inbox runs it (lib/import/parallel-rows.ts).
  buildSync({
    absWorkingDir: root,
    entryPoints: ["lib/import/parse.worker.ts"],
    outfile: PARSE_WORKER_BUNDLE,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    logLevel: "warning",
  });
  buildSync({
    absWorkingDir: root,
    entryPoints: ["server/main.ts"],
    outfile: SERVER_BUNDLE,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    // next, pino, the database drivers: loaded from node_modules, as the route handlers load them.
    packages: "external",
    logLevel: "warning",
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) buildWorker();
