import type { BackendResult } from "./run";

/**
 * What makes a `--smoke` run broken (the run exits 1 and names each): a failed request anywhere,
 * a class whose totals changed between requests or disagree with the direct SQL count, a class
 * with no request or no record, and an import during reads that failed or whose totals were
 * neither all of the file nor none of it. Timings are not judged: a smoke run on a shared machine
 * proves that the benchmark works, the full run measures.
 */
export function smokeProblems(r: BackendResult): string[] {
  const problems: string[] = [];
  const failed = (what: string, s: { requests: number; failures: number; failureSamples: string[] }) => {
    if (s.requests === 0) problems.push(`${what}: no request`);
    if (s.failures > 0) problems.push(`${what}: ${s.failures} failed requests (${s.failureSamples.slice(0, 3).join("; ")})`);
  };
  failed("401 floor", r.floor401);
  if (r.classes.length === 0) problems.push("no class measured");
  for (const c of r.classes) {
    failed(c.id, c.stats);
    if (!c.totalsConstant) problems.push(`${c.id}: the total changed between requests`);
    if (!c.totalMatchesSql) problems.push(`${c.id}: the total differs from the SQL count`);
    if (!(c.totalElements !== null && c.totalElements > 0)) problems.push(`${c.id}: no records in the selection`);
  }
  failed("mixed, default pages", r.mixed.defaultPage);
  failed("mixed, 1000-row pages", r.mixed.page1000);
  const live = r.importDuringReads;
  if (live.exitCode !== 0) problems.push(`import during reads: exit ${String(live.exitCode)}`);
  failed("reads during the import", live.reads);
  if (live.before === null || live.after !== live.before + live.records) problems.push(`import during reads: total ${String(live.before)} -> ${String(live.after)} for ${live.records} records`);
  if (!live.allOrNothing) problems.push(`import during reads: a total between none and all of the file (${live.totalsSeen.join(", ")})`);
  return problems;
}
