import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { backends, PG_URL, tempDir } from "../helpers/db";

/**
 * The short version of the soak (`npm run soak -- --short`; without it the soak runs for minutes): signed
 * clients, dashboard sessions with page renders and exports, and a real import at once against one
 * production server. No request may fail, the server's RSS stays under the bound, and every total
 * seen is the one before the import or the one after it.
 */
describe.each(backends)("soak (short) on $name", (backend) => {
  it("serves mixed traffic and an import at once without a failure", async () => {
    const out = path.join(tempDir("disputes-soak-test-"), "soak.json");
    const result = await runCli("soak.ts", ["--short", "--backend", backend.name, "--max-rss-mb", "768", "--json", out], PG_URL ? { TEST_DATABASE_URL: PG_URL } : {});
    expect(result.code, result.stdout.slice(-3000) + result.stderr).toBe(0);
    const summary = JSON.parse(fs.readFileSync(out, "utf8")) as {
      requests: number;
      failures: number;
      peakRssMb: number;
      totals: { before: number; after: number; unexpected: number[]; wentBack: boolean; importDone: boolean };
      byKind: Record<string, number>;
      unsent: string[];
    };
    console.log(`soak (short): ${backend.name}: ${summary.requests} requests, ${summary.failures} failed, peak RSS ${summary.peakRssMb} MB`);
    expect(summary.failures).toBe(0);
    expect(summary.requests).toBeGreaterThan(200);
    expect(summary.totals.importDone).toBe(true);
    expect(summary.totals.after).toBeGreaterThan(summary.totals.before);
    expect(summary.totals.unexpected).toEqual([]);
    expect(summary.totals.wentBack).toBe(false);
    expect(summary.unsent).toEqual([]);
    for (const kind of ["export", "dashboard page", "dashboard search", "signed 1000 a page"]) expect(summary.byKind[kind], kind).toBeGreaterThan(0);
  }, 180_000);
});
