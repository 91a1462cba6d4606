import path from "node:path";
import { buildSync } from "esbuild";

/**
 * The commands the tests start most (`npm run import`, `npm run admin`), compiled once per test
 * run into plain JavaScript, so that each of the hundreds of runs starts in node at once instead of
 * compiling its TypeScript through tsx first. The same sources as `npm run import` and
 * `npm run admin`, which users keep running through tsx (package.json). Built by the suites'
 * global setups (tests/global-setup.ts, tests/e2e/global-setup.ts); .worker/ is not in git.
 *
 * The packages are bundled in too, all but those that load files of their own at run time
 * (`EXTERNAL`): node then reads one file instead of resolving and compiling hundreds (kysely
 * alone is over a hundred modules), which halves a command's start (0.55 -> 0.27 s of CPU for
 * `admin shop list`).
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
export const COMPILED_DIR = path.join(ROOT, ".worker/cli");

/** The scripts/<name>.ts that runCli and startCli start compiled; any other runs through tsx. */
export const COMPILED_COMMANDS = ["import.ts", "admin.ts"] as const;

/** Packages left to node_modules: native addons, and pino, whose transports start worker files by path. */
const EXTERNAL = ["better-sqlite3", "pg", "pg-native", "pino"];

/** The node options of a command as package.json runs it: the admin command reads the server's data modules ("server-only"). */
export const NODE_ARGS: Record<string, string[]> = { "admin.ts": ["--conditions=react-server"] };

export function compiledCommandPath(script: string): string {
  return path.join(COMPILED_DIR, script.replace(/\.ts$/, ".mjs"));
}

export function buildCommands(): void {
  const common = {
    absWorkingDir: ROOT,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    external: EXTERNAL,
    // Bundled CommonJS packages call require(): give the ES module one.
    banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
    outExtension: { ".js": ".mjs" },
    logLevel: "warning",
  } as const;
  // Each command with the node options package.json runs it with (admin: --conditions=react-server,
  // for the "server-only" modules it reads), now resolved at build time.
  for (const script of COMPILED_COMMANDS) {
    const conditions = (NODE_ARGS[script] ?? []).flatMap((arg) => (arg.startsWith("--conditions=") ? [arg.slice("--conditions=".length)] : []));
    buildSync({ ...common, conditions, entryPoints: [path.join("scripts", script)], outdir: COMPILED_DIR });
  }
  // The import's parsing thread (lib/import/parallel-rows.ts) is the file parse.worker.mjs beside
  // the module that starts it; in the compiled command that module is .worker/cli/import.mjs.
  buildSync({ ...common, entryPoints: ["lib/import/parse.worker.ts"], outdir: COMPILED_DIR });
}
