/**
 * npm run bench:summary -- --database <DATABASE_URL> [--tree <checkout>] [--runs 30] [--scope <shops>]
 *   [--to YYYY-MM-DD] [--report] [--out <file.json>]
 *
 * Latency of the summaries (docs/api.md, "Summaries") on the production server of --tree (default
 * this checkout; `npm run build` there first) over an imported database (e.g. the one-million
 * history of docs/performance.md, "Reproduce": `npm run demo:generate -- --chargebacks 1000000
 * --shops 200 --merchants 50 --days 730 --every-day`, then `npm run import`). Creates a credential
 * whose access list holds the first --scope shops with records (default all), and a user who sees
 * the same shops, then:
 * - without --report, the overview's six chargeback summaries over the 365 file dates ending
 *   --to (default the latest file date): each the first alone and p50/p95 of --runs in a row, then
 *   the six at once;
 * - with --report, the report page's layouts: every pair of the summaries' dimensions of both
 *   endpoints (the chargebacks' documents extension included), each over a year of file dates
 *   ending --to, a day earlier each run (so that the months covered in part move as on the page),
 *   --runs requests in a row; and the report page itself (GET /report with the user's session,
 *   its summary read while the page renders), --runs loads of each chargeback layout, timed until
 *   the whole HTML is in.
 * The floor (docs/performance.md, "How the benchmark measures"): after each timed request, an
 * unauthenticated POST /api/chargeback (401, no database work), one at a time, and the 401 floor's
 * requests per second at 16 in flight before and after; every figure is printed with the floor of
 * its own moment, so runs on a busy and a quiet machine can be compared.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { createShop, createUser } from "@/lib/auth/accounts";
import { createSession, SESSION_COOKIE } from "@/lib/auth/sessions";
import { openDatabase } from "@/lib/data/connection/db";
import { type Call, type Credential, load, send } from "@/scripts/bench/http";
import { ROOT, startServer } from "@/scripts/bench/server";

function flag(name: string, fallback?: string): string {
  const at = process.argv.indexOf(`--${name}`);
  const value = at < 0 ? fallback : process.argv[at + 1];
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
}

/** The report page's dimensions: it groups by any two of them (the chargebacks' documents is an extension). */
const REPORT = {
  chargeback: ["month", "file_date", "shop_code", "merchant_id", "card_type", "reason_code", "function_code", "documents"],
  pre_arbitration: ["month", "file_date", "shop_code", "merchant_id", "case_stage"],
} as const;
type Kind = keyof typeof REPORT;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const round = (ms: number) => Math.round(ms * 10) / 10;
const fmt = (ms: number) => ms.toFixed(1).padStart(7);
const dayBefore = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

interface Layout {
  kind: Kind;
  groupBy: string[];
  /** false for a pair with the documents extension */
  core: boolean;
  firstMs: number;
  ms: number[];
  floorMs: number[];
  /** requests refused with more than 10,000 groups (still timed) */
  refused: number;
}

async function main() {
  const url = flag("database");
  const tree = path.resolve(flag("tree", ROOT));
  const runs = Number(flag("runs", "30"));
  const report = process.argv.includes("--report");
  process.env.APP_SECRET ??= crypto.randomBytes(24).toString("hex");
  const db = await openDatabase(url);
  let credential: Credential;
  let to: string;
  let cookie: string;
  let scope: string[];
  try {
    const shops = (await db.db.selectFrom("record_shops").select("shop_code").where("kind", "=", "chargeback").orderBy("shop_code").execute()).map((r) => r.shop_code);
    const last = await db.db.selectFrom("record_counts").select((eb) => eb.fn.max("file_date").as("d")).executeTakeFirstOrThrow();
    to = flag("to", String(last.d));
    scope = shops.slice(0, Number(flag("scope", String(shops.length))));
    const tag = crypto.randomBytes(4).toString("hex");
    credential = { shopCode: `bench-summary-${tag}`, password: crypto.randomBytes(12).toString("hex"), access: scope };
    await createShop(db.db, { shopCode: credential.shopCode, password: credential.password, access: scope });
    const email = `bench-summary-${tag}@bench.test`;
    await createUser(db.db, { email, password: crypto.randomBytes(12).toString("hex"), access: scope });
    const user = await db.db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirstOrThrow();
    cookie = `${SESSION_COOKIE}=${(await createSession(db.db, Number(user.id))).token}`;
    const migrations = (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.db)).rows.map((r) => r.name);
    console.log(`${url.replace(/:[^:@/]+@/, ":***@")}: ${shops.length} shops with records, scope ${scope.length}, years ending ${to}, ${runs} runs; last migration ${migrations.at(-1)}; server of ${tree}`);
  } finally {
    await db.close();
  }
  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: "0", APP_SECRET: process.env.APP_SECRET! }, () => {}, tree);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  const floorCall: Call = { path: "/api/chargeback", body: "{}", credential: undefined };
  const floorRate = async () => (await load(server.url, [{ name: "floor", connections: 16, call: () => floorCall, expected: 401 }], { warmup: 1, seconds: 3 })).floor;
  const started = new Date();
  const loadBefore = os.loadavg();
  try {
    const floorBefore = await floorRate();
    console.log(`401 floor at 16 in flight: ${floorBefore.reqPerSec} req/s (p50 ${floorBefore.p50} ms), load average ${loadBefore.map((l) => l.toFixed(1)).join(" ")}`);
    const floorOnce = async () => (await send(server.url, floorCall, agent)).ms;
    const once = async (kind: Kind, groupBy: string[], range: { from: string; to: string }) => {
      const answer = await send(server.url, { path: `/api/${kind}/summary`, body: JSON.stringify({ file_date_from: range.from, file_date_to: range.to, group_by: groupBy }), credential }, agent);
      const refused = answer.status === 400 && /more than 10000 groups/.test(answer.snippet ?? "");
      if (answer.status !== 200 && !refused) throw new Error(`${kind} ${JSON.stringify(groupBy)}: ${answer.status} ${answer.error ?? answer.snippet ?? ""}`);
      return { ms: answer.ms, refused };
    };
    const year = (i: number) => ({ from: dayBefore(dayBefore(to, i % 31), 364), to: dayBefore(to, i % 31) });
    if (!report) {
      const overview = [["month"], ["month", "card_type"], ["reason_code"], ["shop_code"], ["merchant_id"], []];
      console.log("group_by                  first    p50     p95  (ms)");
      for (const groupBy of overview) {
        const first = (await once("chargeback", groupBy, year(0))).ms;
        const times: number[] = [];
        for (let i = 0; i < runs; i++) times.push((await once("chargeback", groupBy, year(0))).ms);
        console.log(`${JSON.stringify(groupBy).padEnd(24)} ${fmt(first)} ${fmt(percentile(times, 50))} ${fmt(percentile(times, 95))}`);
      }
      const pages: number[] = [];
      for (let i = 0; i < runs; i++) {
        const t0 = performance.now();
        await Promise.all(overview.map((groupBy) => once("chargeback", groupBy, year(0))));
        pages.push(performance.now() - t0);
      }
      console.log(`page (the six at once)   ${" ".repeat(7)} ${fmt(percentile(pages, 50))} ${fmt(percentile(pages, 95))}`);
      return;
    }

    const layouts: Layout[] = [];
    console.log("kind             group_by                            first    p50     p95   floor p50  (ms)");
    for (const kind of ["chargeback", "pre_arbitration"] as const) {
      const dims = REPORT[kind];
      for (const groupBy of dims.flatMap((a, i) => dims.slice(i + 1).map((b) => [a, b]))) {
        const layout: Layout = { kind, groupBy, core: !groupBy.includes("documents"), firstMs: (await once(kind, groupBy, year(0))).ms, ms: [], floorMs: [], refused: 0 };
        for (let i = 0; i < runs; i++) {
          const answer = await once(kind, groupBy, year(i));
          layout.ms.push(answer.ms);
          if (answer.refused) layout.refused++;
          layout.floorMs.push(await floorOnce());
        }
        layouts.push(layout);
        const note = layout.refused ? `  400: over 10,000 groups (${layout.refused} of ${runs})` : "";
        console.log(`${kind.padEnd(16)} ${JSON.stringify(groupBy).padEnd(35)} ${fmt(layout.firstMs)} ${fmt(percentile(layout.ms, 50))} ${fmt(percentile(layout.ms, 95))} ${fmt(percentile(layout.floorMs, 50))}${note}`);
      }
    }

    // The report page: GET /report with the user's session, its table read while it renders.
    // A layout the API refuses (more than 10,000 groups) is timed but left out of the aggregates,
    // as the browser study counts it apart: the page computes its grouping before it knows.
    const refusedPairs = new Set(layouts.filter((l) => l.kind === "chargeback" && l.refused === runs).map((l) => l.groupBy.join(",")));
    const pages: { groupBy: string[]; core: boolean; refused: boolean; ms: number[] }[] = [];
    const pageFloor: number[] = [];
    const dims = REPORT.chargeback;
    for (const [rows, cols] of dims.flatMap((a, i) => dims.slice(i + 1).map((b) => [a, b]))) {
      const page = { groupBy: [rows, cols], core: rows !== "documents" && cols !== "documents", refused: refusedPairs.has(`${rows},${cols}`), ms: [] as number[] };
      for (let i = 0; i < runs; i++) {
        const { from, to: end } = year(i);
        const t0 = performance.now();
        const res = await fetch(new URL(`/report?from=${from}&to=${end}&rows=${rows}&cols=${cols}`, server.url), { headers: { cookie }, redirect: "manual" });
        const html = await res.text();
        page.ms.push(performance.now() - t0);
        if (res.status !== 200 || !html.includes("Report")) throw new Error(`/report ${rows} x ${cols}: ${res.status}`);
        pageFloor.push(await floorOnce());
      }
      pages.push(page);
    }
    const floorAfter = await floorRate();
    const loadAfter = os.loadavg();
    console.log(`401 floor at 16 in flight: ${floorAfter.reqPerSec} req/s after, load average ${loadAfter.map((l) => l.toFixed(1)).join(" ")}`);

    const timed = (list: Layout[]) => list.flatMap((l) => (l.refused === runs ? [] : l.ms));
    const shown = pages.filter((p) => !p.refused);
    const chargeback = layouts.filter((l) => l.kind === "chargeback");
    const result = {
      started: started.toISOString(),
      database: url.startsWith("postgres") ? "postgres" : "sqlite",
      tree,
      runs,
      to,
      scope: scope.length,
      loadAverage: { before: loadBefore.map(round), after: loadAfter.map(round) },
      floor: { before: floorBefore, after: floorAfter, aloneP50Ms: round(percentile(layouts.flatMap((l) => l.floorMs), 50)) },
      api: {
        chargebackCore: { p50: round(percentile(timed(chargeback.filter((l) => l.core)), 50)), p95: round(percentile(timed(chargeback.filter((l) => l.core)), 95)) },
        chargebackAll: { p50: round(percentile(timed(chargeback), 50)), p95: round(percentile(timed(chargeback), 95)) },
        preArbitration: { p50: round(percentile(timed(layouts.filter((l) => l.kind === "pre_arbitration")), 50)), p95: round(percentile(timed(layouts.filter((l) => l.kind === "pre_arbitration")), 95)) },
        refusedLayouts: layouts.filter((l) => l.refused === runs).map((l) => `${l.kind} ${l.groupBy.join(" x ")}`),
      },
      page: {
        core: { p50: round(percentile(shown.filter((p) => p.core).flatMap((p) => p.ms), 50)), p95: round(percentile(shown.filter((p) => p.core).flatMap((p) => p.ms), 95)) },
        all: { p50: round(percentile(shown.flatMap((p) => p.ms), 50)), p95: round(percentile(shown.flatMap((p) => p.ms), 95)) },
        floorAloneP50Ms: round(percentile(pageFloor, 50)),
        layouts: pages.map((p) => ({ groupBy: p.groupBy, refused: p.refused, p50: round(percentile(p.ms, 50)), p95: round(percentile(p.ms, 95)), ms: p.ms.map(round) })),
      },
      layouts: layouts.map((l) => ({ kind: l.kind, groupBy: l.groupBy, firstMs: round(l.firstMs), p50: round(percentile(l.ms, 50)), p95: round(percentile(l.ms, 95)), floorP50: round(percentile(l.floorMs, 50)), refused: l.refused, ms: l.ms.map(round) })),
    };
    console.log(`API p95 (p50) over every timed request: chargebacks, the report's dimensions ${result.api.chargebackCore.p95} (${result.api.chargebackCore.p50}) ms; with documents ${result.api.chargebackAll.p95} (${result.api.chargebackAll.p50}); cases ${result.api.preArbitration.p95} (${result.api.preArbitration.p50})`);
    console.log(`report page (whole HTML) p95 (p50): the report's dimensions ${result.page.core.p95} (${result.page.core.p50}) ms; with documents ${result.page.all.p95} (${result.page.all.p50}); 401 alone p50 ${result.page.floorAloneP50Ms} ms`);
    const out = process.argv.includes("--out") ? flag("out") : undefined;
    if (out) fs.writeFileSync(out, JSON.stringify(result, null, 2) + "\n");
  } finally {
    agent.destroy();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
