/**
 * npx tsx scripts/bench-summary.ts --database <DATABASE_URL> [--from YYYY-MM-DD] [--to YYYY-MM-DD]
 *   [--scope <shops>] [--runs 50] [--report]
 *
 * Latency of the summaries (docs/api.md, "Summaries") that the dashboard's overview page asks for, on the
 * production server (`npm run build` first) over an imported database (e.g. `npm run
 * demo:generate -- --chargebacks 1000000 --shops 200 --merchants 50 --days 730 --every-day`, then
 * `npm run import`). Creates a credential whose access list holds the first --scope shops with
 * records (default all), then per summary: the first request alone, and p50/p95 of --runs in a
 * row; then the page: the six summaries at once, --runs times, p50/p95 of the slowest of each six.
 * With --report, instead: the report page's summaries (issue 23), every pair of its dimensions of
 * both endpoints, each the first alone and p50/p95 of --runs in a row.
 */
import crypto from "node:crypto";
import http from "node:http";
import { createShop } from "@/lib/auth/accounts";
import { openDatabase } from "@/lib/data/connection/db";
import { type Call, type Credential, send } from "./bench/http";
import { startServer } from "./bench/server";

function flag(name: string, fallback?: string): string {
  const at = process.argv.indexOf(`--${name}`);
  const value = at < 0 ? fallback : process.argv[at + 1];
  if (value === undefined) throw new Error(`--${name} is required`);
  return value;
}

/** The report page's dimensions (issue 23): it groups by any two of them. */
const REPORT = {
  chargeback: ["month", "file_date", "shop_code", "merchant_id", "card_type", "reason_code", "function_code"],
  pre_arbitration: ["month", "file_date", "shop_code", "merchant_id", "case_stage"],
} as const;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const fmt = (ms: number) => ms.toFixed(1).padStart(7);

async function main() {
  const url = flag("database");
  const runs = Number(flag("runs", "50"));
  const report = process.argv.includes("--report");
  process.env.APP_SECRET ??= crypto.randomBytes(24).toString("hex");
  const db = await openDatabase(url);
  let credential: Credential;
  let range: { from: string; to: string };
  try {
    const shops = (await db.db.selectFrom("record_shops").select("shop_code").where("kind", "=", "chargeback").orderBy("shop_code").execute()).map((r) => r.shop_code);
    const last = await db.db.selectFrom("record_counts").select((eb) => eb.fn.max("file_date").as("d")).executeTakeFirstOrThrow();
    const to = flag("to", String(last.d));
    const from = new Date(`${to}T00:00:00Z`);
    from.setUTCDate(from.getUTCDate() - 364);
    range = { from: flag("from", from.toISOString().slice(0, 10)), to };
    const scope = shops.slice(0, Number(flag("scope", String(shops.length))));
    credential = { shopCode: `bench-summary-${crypto.randomBytes(4).toString("hex")}`, password: crypto.randomBytes(12).toString("hex"), access: scope };
    await createShop(db.db, { shopCode: credential.shopCode, password: credential.password, access: scope });
    console.log(`${url.replace(/:[^:@/]+@/, ":***@")}: ${shops.length} shops with records, scope ${scope.length}, file dates ${range.from} .. ${range.to}, ${runs} runs`);
  } finally {
    await db.close();
  }
  const server = await startServer({ DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: "0", APP_SECRET: process.env.APP_SECRET! }, () => {});
  try {
    const overview = [["month"], ["month", "card_type"], ["reason_code"], ["shop_code"], ["merchant_id"], []];
    const call = (groupBy: string[], kind: keyof typeof REPORT = "chargeback"): Call => ({
      path: `/api/${kind}/summary`,
      body: JSON.stringify({ file_date_from: range.from, file_date_to: range.to, group_by: groupBy }),
      credential,
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    let tooMany = false;
    const once = async (groupBy: string[], kind: keyof typeof REPORT = "chargeback") => {
      const answer = await send(server.url, call(groupBy, kind), agent);
      // More than 10,000 groups (e.g. file_date x shop_code over a year): a 400, still timed.
      tooMany = answer.status === 400 && /more than 10000 groups/.test(answer.snippet ?? "");
      if (answer.status !== 200 && !tooMany) throw new Error(`${kind} ${JSON.stringify(groupBy)}: ${answer.status} ${answer.error ?? answer.snippet ?? ""}`);
      return answer.ms;
    };
    if (report) {
      console.log("kind             group_by                           first    p50     p95  (ms)");
      for (const kind of ["chargeback", "pre_arbitration"] as const) {
        const dims = REPORT[kind];
        for (const groupBy of dims.flatMap((a, i) => dims.slice(i + 1).map((b) => [a, b]))) {
          const first = await once(groupBy, kind);
          const times: number[] = [];
          for (let i = 0; i < runs; i++) times.push(await once(groupBy, kind));
          times.sort((a, b) => a - b);
          console.log(`${kind.padEnd(16)} ${JSON.stringify(groupBy).padEnd(34)} ${fmt(first)} ${fmt(percentile(times, 50))} ${fmt(percentile(times, 95))}${tooMany ? "  400: over 10,000 groups" : ""}`);
        }
      }
      agent.destroy();
      return;
    }
    console.log("group_by                  first    p50     p95  (ms)");
    for (const groupBy of overview) {
      const first = await once(groupBy);
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push(await once(groupBy));
      times.sort((a, b) => a - b);
      console.log(`${JSON.stringify(groupBy).padEnd(24)} ${fmt(first)} ${fmt(percentile(times, 50))} ${fmt(percentile(times, 95))}`);
    }
    const pages: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await Promise.all(overview.map((groupBy) => once(groupBy)));
      pages.push(performance.now() - started);
    }
    pages.sort((a, b) => a - b);
    console.log(`page (the six at once)   ${" ".repeat(7)} ${fmt(percentile(pages, 50))} ${fmt(percentile(pages, 95))}`);
    agent.destroy();
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
