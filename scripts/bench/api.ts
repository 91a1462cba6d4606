/**
 * API benchmark: loads N generated chargebacks (and N/5 pre-arbitration cases) into a fresh
 * database through the import library, starts the production server and measures throughput
 * and latency of typical searches with concurrent signed requests from this process.
 *   npx tsx scripts/bench/api.ts --records 1000000 [--database-url postgres://...] [--seconds 10]
 */
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "@/lib/data/db";
import { createShop } from "@/lib/auth/accounts";
import { generateDemoFiles } from "@/lib/demo/generate";
import { importPaths } from "@/lib/import";

interface Scenario {
  name: string;
  kind: "chargeback" | "pre_arbitration";
  body: (shops: string[]) => Record<string, unknown>;
}

const SCENARIOS: Scenario[] = [
  { name: "first page, default order", kind: "chargeback", body: () => ({}) },
  { name: "one shop, 3-month range, FILE_DATE desc, 100/page", kind: "chargeback", body: (s) => ({ shop_codes: [s[0]], file_date_from: "2026-06-01", file_date_to: "2026-08-31", sortKey: "FILE_DATE", sortOrder: "desc", per_page: 100 }) },
  { name: "order-number lookup (10 values)", kind: "chargeback", body: () => ({ payment_order_nrs: Array.from({ length: 10 }, (_, i) => `ORD-${100000 + i * 997}`) }) },
  { name: "PAYMENT_ORDER_NR desc, page 50 of 100", kind: "chargeback", body: () => ({ sortKey: "PAYMENT_ORDER_NR", sortOrder: "desc", page: 50, per_page: 100 }) },
  { name: "1000 records per page, SHOP_CODE asc", kind: "chargeback", body: () => ({ sortKey: "SHOP_CODE", per_page: 1000 }) },
  { name: "merchant filter, MERCHANT_ID asc", kind: "chargeback", body: () => ({ merchant_id: "MID0000002", sortKey: "MERCHANT_ID" }) },
  { name: "pre-arbitration, ACQ_REF_NR desc", kind: "pre_arbitration", body: () => ({ sortKey: "ACQ_REF_NR", sortOrder: "desc", per_page: 50 }) },
];

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function waitReady(url: string) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("server did not start");
}

function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

export async function benchApi(opts: { records: number; databaseUrl?: string; seconds: number; concurrency: number }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disputes-bench-api-"));
  const databaseUrl = opts.databaseUrl ?? `file:${path.join(dir, "bench.sqlite")}`;
  process.env.DATABASE_URL = databaseUrl;
  process.env.APP_KEY_FILE = path.join(dir, "app.key");
  const db = await openDatabase(databaseUrl);
  const existing = await db.db.selectFrom("chargebacks").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  if (Number(existing.n) === 0) {
    console.log(`generating and importing ${opts.records} chargebacks and ${Math.round(opts.records / 5)} pre-arbitration cases ...`);
    const started = Date.now();
    await generateDemoFiles({ out: path.join(dir, "files"), seed: 7, chargebacks: opts.records, preArbitrations: Math.round(opts.records / 5) });
    const files = fs.readdirSync(path.join(dir, "files")).sort().map((f) => path.join(dir, "files", f));
    await importPaths(db, files, () => {});
    console.log(`loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  const shops = (await db.db.selectFrom("chargebacks").select("shop_code").distinct().execute()).map((r) => r.shop_code);
  const password = "bench-password-1";
  const shopCode = `bench-${crypto.randomBytes(3).toString("hex")}`;
  await createShop(db.db, { shopCode, password, access: shops });
  await db.close();

  const port = 3400 + Math.floor(Math.random() * 500);
  const server = spawn(path.resolve("node_modules/.bin/next"), ["start", "-p", String(port), "-H", "127.0.0.1"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: "0", NODE_ENV: "production" },
    stdio: "ignore",
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(url);
    console.log(`\n${databaseUrl.startsWith("postgres") ? "PostgreSQL" : "SQLite"}, ${opts.records} chargebacks, ${shops.length} shops in scope, concurrency ${opts.concurrency}, ${opts.seconds} s per scenario`);
    console.log("scenario | req/s | p50 ms | p95 ms | p99 ms | totalElements");
    for (const scenario of SCENARIOS) {
      const body = JSON.stringify(scenario.body(shops));
      const latencies: number[] = [];
      let total = -1;
      let errors = 0;
      const deadline = Date.now() + opts.seconds * 1000;
      const worker = async () => {
        while (Date.now() < deadline) {
          const nonce = crypto.randomBytes(16).toString("hex");
          const signature = crypto.createHash("sha256").update(nonce + password).digest("hex");
          const t0 = performance.now();
          const res = await fetch(`${url}/api/${scenario.kind}`, {
            method: "POST",
            headers: { "Content-Type": "application/json", "X-Shop-Code": shopCode, "X-Nonce": nonce, "X-Signature": signature },
            body,
          });
          const json = (await res.json()) as { totalElements?: number };
          latencies.push(performance.now() - t0);
          if (res.status !== 200) errors++;
          else total = json.totalElements ?? -1;
        }
      };
      const started = Date.now();
      await Promise.all(Array.from({ length: opts.concurrency }, worker));
      const elapsed = (Date.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      console.log(
        `${scenario.name} | ${(latencies.length / elapsed).toFixed(0)} | ${percentile(latencies, 50).toFixed(1)} | ${percentile(latencies, 95).toFixed(1)} | ${percentile(latencies, 99).toFixed(1)} | ${total}${errors ? ` | ${errors} errors` : ""}`,
      );
    }
    console.log(`server RSS after the run: ${rssMb(server.pid!)} MB`);
  } finally {
    server.kill("SIGTERM");
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchApi({
    records: Number(arg("records", "1000000")),
    databaseUrl: process.argv.includes("--database-url") ? arg("database-url", "") : undefined,
    seconds: Number(arg("seconds", "10")),
    concurrency: Number(arg("concurrency", "8")),
  });
}
