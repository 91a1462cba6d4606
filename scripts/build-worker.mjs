// Bundles the SQLite reader thread (lib/data/sqlite-reader.worker.ts and what it imports) and the
// production server (server/main.ts) into plain JavaScript files, so that neither needs a
// TypeScript loader at run time. next.config.mjs runs it for `next build` and `next dev` (not when
// the production server loads it); `node scripts/build-worker.mjs` too.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

export const WORKER_BUNDLE = ".worker/sqlite-reader.worker.cjs";
export const SERVER_BUNDLE = ".worker/server.cjs";

export function buildWorker(root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")) {
  buildSync({
    absWorkingDir: root,
    entryPoints: ["lib/data/sqlite-reader.worker.ts"],
    outfile: WORKER_BUNDLE,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    external: ["better-sqlite3"],
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
