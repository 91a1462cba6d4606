/**
 * Soak test (docs/architecture.md, "Reliability and security"): minutes of mixed traffic against one production
 * server on loopback, bounded in time and count, stopping by itself.
 *
 *   npm run soak -- [--backend sqlite|postgres] [--seconds 300] [--records 50000] [--max-rss-mb 768] [--json <file>]
 *   npm run soak -- --short [--backend ...]   15 seconds over 3,000 records: what `npm test` runs
 *
 * At once, for the whole run: signed API clients (pages of both endpoints, 1000-record pages,
 * filters, pages past the end), dashboard sessions (cookie-authenticated searches, page renders,
 * CSV exports read to the end), and halfway through, a real `npm run import` of a new file.
 * Passes (exit 0) when no request failed, every kind of request was sent, the server's RSS stayed
 * under the bound, and every total seen was the total before the import or after it, never between
 * and never back again.
 * PostgreSQL needs TEST_DATABASE_URL (or BENCH_DATABASE_URL) naming a server; a scratch database is
 * made and dropped.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { createShop, createUser } from "@/lib/auth/accounts";
import { createSession, SESSION_COOKIE } from "@/lib/auth/sessions";
import { openDatabase } from "@/lib/data/connection/db";
import { generateDemoFiles } from "@/lib/demo/generate";
import { type Credential, send } from "./bench/http";
import { freshDatabase, importMeasured } from "./bench/import";
import type { Backend } from "./bench/options";
import { Cleanup } from "./bench/run";
import { ROOT, startServer } from "./bench/server";

interface SoakOptions {
  backend: Backend;
  seconds: number;
  records: number;
  maxRssMb: number;
  json?: string;
}

/** --short: long enough for the import to land in the middle of every kind of traffic. */
const SHORT = { seconds: 15, records: 3000 };

function parse(argv: string[]): SoakOptions {
  const opts: SoakOptions = { backend: "sqlite", seconds: 300, records: 50_000, maxRssMb: 768 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const whole = (min: number, max: number) => {
      const n = Number(value);
      if (!/^\d+$/.test(value ?? "") || n < min || n > max) throw new Error(`${flag} needs a whole number from ${min} to ${max}`);
      i++;
      return n;
    };
    if (flag === "--backend" && (value === "sqlite" || value === "postgres")) {
      opts.backend = value;
      i++;
    }
    else if (flag === "--short") Object.assign(opts, SHORT);
    else if (flag === "--seconds") opts.seconds = whole(5, 6 * 3600);
    else if (flag === "--records") opts.records = whole(1000, 5_000_000);
    else if (flag === "--max-rss-mb") opts.maxRssMb = whole(64, 65536);
    else if (flag === "--json" && value) {
      opts.json = value;
      i++;
    }
    else throw new Error(`unknown or incomplete flag ${flag}: see the comment at the top of scripts/soak.ts`);
  }
  return opts;
}

interface Tally {
  requests: number;
  failures: { what: string; status: number; detail?: string }[];
  byKind: Record<string, number>;
  latencies: number[];
}

function record(tally: Tally, what: string, status: number, ms: number, ok: boolean, detail?: string) {
  tally.requests++;
  tally.byKind[what] = (tally.byKind[what] ?? 0) + 1;
  tally.latencies.push(ms);
  if (!ok && tally.failures.length < 50) tally.failures.push({ what, status, detail: detail?.slice(0, 200) });
  else if (!ok) tally.failures.push({ what, status });
}

/** GET with the session cookie, the whole body read; resolves to the status and the body's size. */
function get(base: URL, pathAndQuery: string, cookie: string, agent: http.Agent): Promise<{ status: number; bytes: number; text: string; complete: boolean }> {
  return new Promise((resolve) => {
    const req = http.get({ host: base.hostname, port: base.port, path: pathAndQuery, headers: { Cookie: cookie }, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, bytes: body.length, text: body.toString("utf8"), complete: res.complete });
      });
      res.on("error", () => resolve({ status: 0, bytes: 0, text: "", complete: false }));
    });
    req.setTimeout(60_000, () => req.destroy(new Error("timeout")));
    req.on("error", () => resolve({ status: 0, bytes: 0, text: "", complete: false }));
  });
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
}

export async function soak(opts: SoakOptions): Promise<Record<string, unknown>> {
  const cleanup = new Cleanup();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "disputes-soak-"));
  cleanup.add("temp folder", () => fs.rmSync(dir, { recursive: true, force: true }));
  try {
    const log = (line: string) => console.log(`soak: ${line}`);
    // The history, and one more day's file held back for the import during the run.
    const history = generateDemoFiles({ out: path.join(dir, "history"), seed: 11, chargebacks: opts.records, preArbitrations: Math.round(opts.records / 5), shops: 40, end: "2026-06-30", days: 60 });
    const late = generateDemoFiles({ out: path.join(dir, "late"), seed: 12, chargebacks: Math.max(500, Math.round(opts.records / 5)), preArbitrations: 0, shops: 40, start: "2026-07-01", end: "2026-07-01" });
    const lateFiles = late.files.filter((f) => path.basename(f).startsWith("CHB_"));
    const database = await freshDatabase(opts.backend, dir, "soak");
    cleanup.add("database", database.drop);
    const imported = await importMeasured(database.url, history.files);
    log(`${opts.backend}: imported ${imported.records} records in ${imported.seconds} s`);

    const env = { DATABASE_URL: database.url, APP_KEY_FILE: path.join(dir, "app.key"), RATE_LIMIT_PER_MINUTE: "0", AUTH_FAILURES_PER_MINUTE: "0", LOG_LEVEL: "warn" };
    Object.assign(process.env, { APP_KEY_FILE: env.APP_KEY_FILE });
    const shops = history.shops.map((s) => s.code);
    const credential: Credential = { shopCode: shops[0], password: "soak-password-1", access: shops };
    const db = await openDatabase(database.url);
    let cookie: string;
    try {
      await createShop(db.db, { shopCode: credential.shopCode, password: credential.password, access: shops });
      await createUser(db.db, { email: "soak@example.test", password: "soak-password-2", access: shops });
      const user = await db.db.selectFrom("users").select("id").where("email", "=", "soak@example.test").executeTakeFirstOrThrow();
      cookie = `${SESSION_COOKIE}=${(await createSession(db.db, Number(user.id), Date.now())).token}`;
    } finally {
      await db.close();
    }

    const server = await startServer(env, (child) => cleanup.track(child));
    cleanup.add("server", server.stop);
    const base = server.url;
    log(`${opts.backend}: server up in ${server.startSeconds} s; ${opts.seconds} s of traffic`);

    const tally: Tally = { requests: 0, failures: [], byKind: {}, latencies: [] };
    const totalsSeen = new Set<number>();
    let before: number | undefined;
    let after: number | undefined;
    let importDone = false;
    let wentBack = false;
    const deadline = Date.now() + opts.seconds * 1000;
    const running = () => Date.now() < deadline;

    const bodies = [
      { what: "default page", path: "/api/chargeback", body: "{}" },
      { what: "1000 a page", path: "/api/chargeback", body: JSON.stringify({ per_page: 1000, sortKey: "PAYMENT_ORDER_NR", sortOrder: "asc" }) },
      { what: "one shop, file dates", path: "/api/chargeback", body: JSON.stringify({ shop_codes: [shops[1]], file_date_from: "2026-06-01", file_date_to: "2026-06-30" }) },
      { what: "page past the end", path: "/api/chargeback", body: JSON.stringify({ page: 100000 }) },
      { what: "pre-arbitration", path: "/api/pre_arbitration", body: "{}" },
    ];

    async function signedClient(n: number) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      let lastTotal = 0;
      for (let i = n; running(); i++) {
        const call = bodies[i % bodies.length];
        const answer = await send(base, { path: call.path, body: call.body, credential }, agent);
        const ok = answer.status === 200;
        record(tally, `signed ${call.what}`, answer.status, answer.ms, ok, answer.snippet ?? answer.error);
        if (ok && call.what === "default page" && answer.total !== undefined) {
          totalsSeen.add(answer.total);
          if (answer.total < lastTotal) wentBack = true;
          lastTotal = answer.total;
        }
      }
      agent.destroy();
    }

    async function dashboardClient(n: number) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
      for (let i = n; running(); i++) {
        const step = i % 4;
        const started = performance.now();
        if (step === 0 || step === 1) {
          const answer = await send(base, { path: "/api/chargeback", body: JSON.stringify({ per_page: 50, shop_codes: [shops[i % shops.length]] }) }, withCookie(agent, cookie, base));
          record(tally, "dashboard search", answer.status, answer.ms, answer.status === 200, answer.snippet ?? answer.error);
        } else if (step === 2) {
          const page = await get(base, `/chargebacks?shops=${encodeURIComponent(shops[i % shops.length])}`, cookie, agent);
          record(tally, "dashboard page", page.status, performance.now() - started, page.status === 200 && page.text.includes("</html>"));
        } else {
          const shop = shops[i % shops.length];
          const file = await get(base, `/api/export/chargeback?shops=${encodeURIComponent(shop)}`, cookie, agent);
          const rows = file.text.split("\r\n").filter(Boolean).length - 1;
          record(tally, "export", file.status, performance.now() - started, file.status === 200 && file.complete && rows >= 0, `rows ${rows}`);
        }
      }
      agent.destroy();
    }

    async function importer() {
      const first = await send(base, { path: "/api/chargeback", body: "{}", credential }, new http.Agent());
      before = first.total;
      await new Promise((r) => setTimeout(r, (opts.seconds * 1000) / 3));
      log(`${opts.backend}: importing ${lateFiles.map((f) => path.basename(f)).join(", ")} during the traffic`);
      const code = await new Promise<number>((resolve) => {
        const child = spawn(path.join(ROOT, "node_modules/.bin/tsx"), [path.join(ROOT, "scripts/import.ts"), ...lateFiles], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
        cleanup.track(child);
        child.stdout.on("data", (d: Buffer) => log(`import: ${d.toString().trim()}`));
        child.on("exit", (c) => resolve(c ?? 1));
      });
      if (code !== 0) tally.failures.push({ what: "import", status: code });
      importDone = true;
      const last = await send(base, { path: "/api/chargeback", body: "{}", credential }, new http.Agent());
      after = last.total;
    }

    const sampler = setInterval(() => server.rss.sample(), 500);
    await Promise.all([
      ...Array.from({ length: 6 }, (_, n) => signedClient(n)),
      ...Array.from({ length: 3 }, (_, n) => dashboardClient(n)),
      importer(),
    ]);
    clearInterval(sampler);
    const rss = server.rss.peak();
    await server.stop();

    const unexpectedTotals = [...totalsSeen].filter((t) => t !== before && t !== after);
    const summary = {
      backend: opts.backend,
      seconds: opts.seconds,
      records: imported.records,
      requests: tally.requests,
      byKind: tally.byKind,
      failures: tally.failures.length,
      failureSamples: tally.failures.slice(0, 10),
      p50Ms: percentile(tally.latencies, 50),
      p99Ms: percentile(tally.latencies, 99),
      peakRssMb: rss.peakRssMb,
      maxRssMb: opts.maxRssMb,
      totals: { before, after, seen: [...totalsSeen].sort((a, b) => a - b), unexpected: unexpectedTotals, wentBack, importDone },
    };
    // Every kind the clients send, so that a client that stopped early cannot pass unseen.
    const kinds = [...bodies.map((b) => `signed ${b.what}`), "dashboard search", "dashboard page", "export"];
    const unsent = kinds.filter((kind) => !(tally.byKind[kind] > 0));
    const passed = summary.failures === 0 && unsent.length === 0 && rss.peakRssMb <= opts.maxRssMb && unexpectedTotals.length === 0 && !wentBack && importDone && before !== after;
    return { ...summary, unsent, passed };
  } finally {
    await cleanup.runAll();
  }
}

/** An agent-like wrapper that adds the session cookie and a same-origin Origin to send()'s POSTs. */
function withCookie(agent: http.Agent, cookie: string, base: URL): http.Agent {
  const wrapped = Object.create(agent) as http.Agent & { addRequest: (req: http.ClientRequest, options: unknown) => void };
  const original = (agent as unknown as { addRequest: (req: http.ClientRequest, options: unknown) => void }).addRequest.bind(agent);
  wrapped.addRequest = (req, options) => {
    req.setHeader("Cookie", cookie);
    req.setHeader("Origin", base.origin);
    original(req, options);
  };
  return wrapped;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const opts = parse(process.argv.slice(2));
  soak(opts)
    .then((summary) => {
      console.log(JSON.stringify(summary, null, 2));
      if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(summary, null, 2));
      console.log(
        `soak: ${summary.backend}: ${summary.requests} requests in ${summary.seconds} s, ${summary.failures} failed, p99 ${summary.p99Ms} ms, peak RSS ${summary.peakRssMb} MB (bound ${summary.maxRssMb}), ${summary.passed ? "PASSED" : "FAILED"}`,
      );
      process.exit(summary.passed ? 0 : 1);
    })
    .catch((err: unknown) => {
      console.error(`soak: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    });
}
