import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { PG_URL, tempDir } from "../helpers/db";

/**
 * The benchmark never rots: `npm run bench -- --smoke` (a few thousand records, 0.3 s
 * per class) runs against the production build on every backend of the run, in one command that
 * generates the files once. The command itself judges its result (scripts/bench/smoke-verdict.ts:
 * no failed request, exact totals that agree with the direct SQL count, reads during an import
 * that see all of the file or none of it) and exits 1 on a broken one; its JSON must hold every
 * class. The targets themselves are checked by the full benchmark, not here: timings on a shared
 * test machine prove nothing.
 */
const BACKENDS = PG_URL ? (["sqlite", "postgres"] as const) : (["sqlite"] as const);
const CLASS_IDS = ["chargeback", "pre_arbitration"].flatMap((kind) => ["a", "b", "c", "d", "e", "f", "g1", "g3"].map((letter) => `${kind}/${letter}`)).sort();

interface Stats {
  requests: number;
  reqPerSec: number;
  failures: number;
  failureSamples: string[];
  totals: number[];
}

interface SmokeRun {
  mode: string;
  machine: { cpus: number; node: string };
  result: {
    backend: string;
    import: { dailyFiles: { records: number; recordsPerSecond: number }; singleFile: { records: number } };
    server: { peakRssMb: number };
    floor401: Stats;
    classes: { id: string; stats: Stats; totalElements: number | null; totalsConstant: boolean; totalMatchesSql: boolean; ratio401: number; aloneMs: number; sql: { medianMs: number } }[];
    mixed: { defaultPage: Stats; page1000: Stats };
    importDuringReads: { allOrNothing: boolean; exitCode: number; reads: Stats; before: number; after: number; records: number };
  };
}

const outs: string[] = [];
afterAll(() => {
  for (const dir of outs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("npm run bench -- --smoke", () => {
  it(`measures every class on ${BACKENDS.join(" and ")} without a failed request and writes the JSON`, { timeout: 420_000 }, async () => {
    const out = tempDir("disputes-bench-smoke-");
    outs.push(out);
    // Scratch databases on TEST_DATABASE_URL's server, never a BENCH_DATABASE_URL of the caller.
    const run = await runCli("bench.ts", ["--smoke", "--backend", BACKENDS.length === 2 ? "both" : "sqlite", "--out", out], { BENCH_DATABASE_URL: "" });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-4000)}`).toBe(0);
    expect(run.stdout).toMatch(/\| class +\| req\/s \|/);
    expect(run.stdout).toContain("401 floor");

    const files = fs.readdirSync(out);
    for (const backend of BACKENDS) {
      expect(files).toContain(`latest-smoke-${backend}.json`);
      expect(files.some((f) => new RegExp(`^smoke-${backend}-\\d+-.+\\.json$`).test(f))).toBe(true);
      const json = JSON.parse(fs.readFileSync(path.join(out, `latest-smoke-${backend}.json`), "utf8")) as SmokeRun;
      const r = json.result;
      expect(json.mode).toBe("smoke");
      expect(r.backend).toBe(backend);
      expect(json.machine.cpus).toBeGreaterThan(0);
      expect(r.import.dailyFiles.records).toBeGreaterThan(1000);
      expect(r.import.dailyFiles.recordsPerSecond).toBeGreaterThan(0);
      expect(r.import.singleFile.records).toBeGreaterThan(1000);
      expect(r.server.peakRssMb).toBeGreaterThan(0);
      expect(r.classes.map((c) => c.id).sort()).toEqual(CLASS_IDS);
      for (const c of r.classes) {
        expect(c.ratio401, c.id).toBeGreaterThan(0);
        expect(c.aloneMs, c.id).toBeGreaterThan(0);
        expect(c.sql.medianMs, c.id).toBeGreaterThanOrEqual(0);
      }
      expect(r.importDuringReads.reads.requests).toBeGreaterThan(0);
    }
  });
});
