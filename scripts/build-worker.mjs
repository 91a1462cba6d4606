// Bundles the SQLite reader thread (lib/data/sqlite-reader.worker.ts and what it imports) into
// one plain JavaScript file, so that a reader thread starts without a TypeScript loader.
// next.config.mjs runs it for `next build` and `next start`; `node scripts/build-worker.mjs` too.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

export const WORKER_BUNDLE = ".worker/sqlite-reader.worker.cjs";

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
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) buildWorker();
