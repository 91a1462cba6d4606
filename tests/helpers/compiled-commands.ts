import path from "node:path";
import { buildSync } from "esbuild";

/**
 * The commands the tests start most (`npm run import`, `npm run admin`), compiled once per test
 * run into plain JavaScript, so that each of the hundreds of runs starts in node at once instead of
 * compiling its TypeScript through tsx first. The same sources as `npm run import` and
 * `npm run admin`, which users keep running through tsx (package.json). Built by the suites'
 * global setups (tests/global-setup.ts, tests/e2e/global-setup.ts); .worker/ is not in git.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
export const COMPILED_DIR = path.join(ROOT, ".worker/cli");

/** The scripts/<name>.ts that runCli and startCli start compiled; any other runs through tsx. */
export const COMPILED_COMMANDS = ["import.ts", "admin.ts"] as const;

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
    // The packages load from node_modules at run time, as under tsx.
    packages: "external",
    outExtension: { ".js": ".mjs" },
    logLevel: "warning",
  } as const;
  buildSync({ ...common, entryPoints: COMPILED_COMMANDS.map((script) => path.join("scripts", script)), outdir: COMPILED_DIR });
  // The import's parsing thread (lib/import/parallel-rows.ts) is the file parse.worker.mjs beside
  // the module that starts it; in the compiled command that module is .worker/cli/import.mjs.
  buildSync({ ...common, entryPoints: ["lib/import/parse.worker.ts"], outdir: COMPILED_DIR });
}
