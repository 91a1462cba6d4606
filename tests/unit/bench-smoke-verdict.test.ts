import { describe, expect, it } from "vitest";
import type { BackendResult } from "@/scripts/bench/run";
import { smokeProblems } from "@/scripts/bench/smoke-verdict";

/** What makes `npm run bench -- --smoke` exit 1 (the suite runs it and relies on its exit status). */
const stats = (over: Partial<BackendResult["floor401"]> = {}): BackendResult["floor401"] => ({
  requests: 40,
  seconds: 1,
  reqPerSec: 40,
  p50: 1,
  p95: 2,
  p99: 3,
  max: 4,
  failures: 0,
  failureSamples: [],
  totals: [120],
  ...over,
});

function healthy(): BackendResult {
  const cls = (id: string) => ({ id, stats: stats(), totalElements: 120, totalsConstant: true, totalMatchesSql: true });
  return {
    floor401: stats({ totals: [] }),
    classes: [cls("chargeback/a"), cls("pre_arbitration/a")],
    mixed: { defaultPage: stats(), page1000: stats(), connections: { defaultPage: 8, page1000: 8 } },
    importDuringReads: { records: 2000, exitCode: 0, importSeconds: 1, reads: stats(), before: 4000, after: 6000, totalsSeen: [4000, 6000], allOrNothing: true, output: "" },
  } as unknown as BackendResult;
}

describe("the bench's smoke verdict", () => {
  it("passes a healthy run", () => {
    expect(smokeProblems(healthy())).toEqual([]);
  });

  it.each<[string, (r: BackendResult) => void, RegExp]>([
    ["a failed request of a class", (r) => Object.assign(r.classes[0].stats, { failures: 2, failureSamples: ["500"] }), /chargeback\/a: 2 failed requests/],
    ["a class without a request", (r) => Object.assign(r.classes[1].stats, { requests: 0 }), /pre_arbitration\/a: no request/],
    ["a total that changed", (r) => (r.classes[0].totalsConstant = false), /total changed/],
    ["a total unlike the SQL count", (r) => (r.classes[0].totalMatchesSql = false), /differs from the SQL count/],
    ["an empty selection", (r) => (r.classes[0].totalElements = 0), /no records/],
    ["no class at all", (r) => (r.classes = []), /no class measured/],
    ["a failed 401 floor request", (r) => (r.floor401.failures = 1), /401 floor: 1 failed/],
    ["a failed mixed request", (r) => (r.mixed.page1000.failures = 1), /1000-row pages: 1 failed/],
    ["a failed import", (r) => (r.importDuringReads.exitCode = 1), /exit 1/],
    ["a total between none and all of the file", (r) => (r.importDuringReads.allOrNothing = false), /between none and all/],
    ["an import that added the wrong count", (r) => (r.importDuringReads.after = 5999), /4000 -> 5999/],
  ])("fails %s", (_, breakIt, message) => {
    const r = healthy();
    breakIt(r);
    const problems = smokeProblems(r);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });
});
