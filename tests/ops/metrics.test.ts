import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DURATION_BUCKETS } from "@/lib/metrics";
import { builtRoutePatterns, NEXT_STATIC, UNMATCHED } from "@/server/routes";
import { CREDENTIALS } from "../api/fixture";
import { type ApiEnv, setupApiEnv } from "../api/harness";
import { ROOT, runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { importColumns } from "@/lib/domain/fields";
import { MINIMAL_ROW } from "../helpers/import-rows";
import { type Family, parseExposition, sampleValue } from "../helpers/prometheus";
import { freePort, startServer, type TestServer } from "../helpers/server";

/**
 * GET /api/metrics (docs/api.md, "Metrics") on a real production server on both backends: known
 * traffic, then the exposition read by a real Prometheus text parser. Route labels are patterns,
 * never paths; the token rules; the backlog read from the database; the families from the start.
 */

afterAll(dropCreatedDatabases);

const TOKEN = "metrics-token-0123456789";
const auth = { Authorization: `Bearer ${TOKEN}` };

async function scrape(server: TestServer): Promise<Map<string, Family>> {
  const res = await fetch(`${server.url}/api/metrics`, { headers: auth });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(await res.text());
}

const total = (family: Family | undefined, match: Record<string, string>) =>
  (family?.metrics ?? []).filter((m) => Object.entries(match).every(([k, v]) => m.labels?.[k] === v)).reduce((n, m) => n + Number(m.value), 0);

async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.each(backends)("metrics on $name", (backend) => {
  let env: ApiEnv;
  beforeAll(async () => {
    env = await setupApiEnv(backend, { METRICS_TOKEN: TOKEN, WEBHOOK_RETRY_SECONDS: "600" });
  });
  afterAll(async () => {
    await env?.server.stop();
  });

  it("has every family from the start, with the import and delivery series at 0", async () => {
    const families = await scrape(env.server);
    const types: Record<string, Family["type"]> = {
      http_requests_total: "COUNTER",
      http_request_duration_seconds: "HISTOGRAM",
      import_files_total: "COUNTER",
      import_records_total: "COUNTER",
      webhook_deliveries_total: "COUNTER",
      mail_messages_total: "COUNTER",
      webhook_backlog: "GAUGE",
      mail_backlog: "GAUGE",
      process_cpu_seconds_total: "COUNTER",
      process_resident_memory_bytes: "GAUGE",
      process_start_time_seconds: "GAUGE",
    };
    for (const [name, type] of Object.entries(types)) expect(families.get(name)?.type, name).toBe(type);
    for (const kind of ["chargeback", "pre_arbitration", "unknown"]) {
      for (const result of ["imported", "skipped", "rejected"]) expect(sampleValue(families.get("import_files_total"), { kind, result })).toBe(0);
    }
    // The fixture was loaded by npm run import: no counter counts it.
    expect(total(families.get("import_records_total"), {})).toBe(0);
    for (const result of ["delivered", "retry", "failed"]) expect(sampleValue(families.get("mail_messages_total"), { result })).toBe(0);
    expect(sampleValue(families.get("mail_backlog"), {})).toBe(0);
    const started = sampleValue(families.get("process_start_time_seconds"), {})!;
    expect(Math.abs(started - Date.now() / 1000)).toBeLessThan(600);
  });

  it("counts known traffic by route pattern, method and status, and times it in buckets from 5 ms to 10 s", async () => {
    const before = await scrape(env.server);
    const count = (f: Map<string, Family>, route: string, method: string, status: string) => sampleValue(f.get("http_requests_total"), { route, method, status }) ?? 0;
    // Each answer read to the end: the server counts an answer when it is done.
    const status = async (answer: Promise<Response>) => {
      const res = await answer;
      await res.arrayBuffer();
      return res.status;
    };
    for (let i = 0; i < 3; i++) expect(await status(env.post("chargeback", {}))).toBe(200);
    expect(await status(env.post("chargeback", {}, { headers: { "X-Signature": "0".repeat(64) } }))).toBe(401);
    expect(await status(env.post("pre_arbitration", {}, { path: "/summary", rawBody: "{}" }))).toBeLessThan(500);
    const raw = ["/api/export/nokind-4711?x=1", "/api/views/98765", "/api/unsubscribe/tok-5150", "/no-such-page-31337", "/api/no-such-route-2718"];
    const statuses = await Promise.all(
      raw.map(async (p) => {
        const res = await fetch(`${env.server.url}${p}`, { redirect: "manual", method: p.includes("unsubscribe") ? "POST" : "GET" });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    expect(statuses[4]).toBe(404);
    const after = await scrape(env.server);

    expect(count(after, "/api/chargeback", "POST", "200") - count(before, "/api/chargeback", "POST", "200")).toBe(3);
    expect(count(after, "/api/chargeback", "POST", "401") - count(before, "/api/chargeback", "POST", "401")).toBe(1);
    expect(count(after, "/api/export/[kind]", "GET", String(statuses[0])) - count(before, "/api/export/[kind]", "GET", String(statuses[0]))).toBe(1);
    expect(count(after, "/api/views/[id]", "GET", String(statuses[1])) - count(before, "/api/views/[id]", "GET", String(statuses[1]))).toBe(1);
    expect(count(after, "/api/unsubscribe/[token]", "POST", String(statuses[2])) - count(before, "/api/unsubscribe/[token]", "POST", String(statuses[2]))).toBe(1);
    expect(count(after, UNMATCHED, "GET", "404") - count(before, UNMATCHED, "GET", "404")).toBeGreaterThanOrEqual(1);
    // The scrape before this one is counted too.
    expect(count(after, "/api/metrics", "GET", "200")).toBeGreaterThanOrEqual(1);

    // Route labels are the build's patterns, never a path, a query string or an id.
    const allowed = new Set([...builtRoutePatterns(ROOT), "/api/metrics", UNMATCHED, NEXT_STATIC]);
    for (const family of ["http_requests_total", "http_request_duration_seconds"]) {
      for (const m of after.get(family)!.metrics) {
        expect(allowed.has(m.labels!.route), m.labels!.route).toBe(true);
        expect(m.labels!.route).not.toMatch(/4711|98765|5150|31337|2718|\?/);
        expect(m.labels!.method).toMatch(/^[A-Z]+$/);
      }
    }
    for (const m of after.get("http_requests_total")!.metrics) expect(m.labels!.status).toMatch(/^\d{3}$/);

    const histogram = after.get("http_request_duration_seconds")!.metrics.find((m) => m.labels!.route === "/api/chargeback" && m.labels!.method === "POST")!;
    const bounds = Object.keys(histogram.buckets!).map((le) => (le === "+Inf" ? Infinity : Number(le)));
    expect(bounds.sort((a, b) => a - b)).toEqual([...DURATION_BUCKETS, Infinity]);
    const previous = before.get("http_request_duration_seconds")!.metrics.find((m) => m.labels!.route === "/api/chargeback" && m.labels!.method === "POST");
    expect(Number(histogram.count) - Number(previous?.count ?? 0)).toBe(4);
    expect(Number(histogram.sum)).toBeGreaterThan(0);
    expect(Number(histogram.buckets!["+Inf"])).toBe(Number(histogram.count));
  });

  it("counts webhook attempts by result, logs each with its outcome and duration, and reads the backlog from the database", async () => {
    // An endpoint nobody listens on: every attempt fails, and is tried again in 10 minutes.
    const closed = await freePort();
    const added = await runCli("admin.ts", ["webhook", "add", CREDENTIALS.wide.shop, `http://127.0.0.1:${closed}/hook`], env.env);
    expect(added.code, added.stderr).toBe(0);
    const dir = tempDir("disputes-metrics-");
    const file = path.join(dir, "CHB_20260601.csv");
    const row = { ...MINIMAL_ROW.chargeback, shop_code: CREDENTIALS.wide.shop };
    const columns = importColumns("chargeback");
    fs.writeFileSync(file, `${columns.join(",")}\n${columns.map((c) => (row as Record<string, string>)[c] ?? "").join(",")}\n`);
    const imported = await runCli("import.ts", [file], env.env);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);

    const families = await until("a webhook attempt counted", async () => {
      const f = await scrape(env.server);
      return (sampleValue(f.get("webhook_deliveries_total"), { result: "retry" }) ?? 0) >= 1 ? f : undefined;
    });
    expect(sampleValue(families.get("webhook_deliveries_total"), { result: "delivered" })).toBe(0);
    expect(sampleValue(families.get("webhook_backlog"), {})).toBeGreaterThanOrEqual(1);
    // A file imported by the command is in no counter.
    expect(total(families.get("import_files_total"), {})).toBe(0);
    const attempts = env.server
      .output()
      .split("\n")
      .filter((l) => l.includes('"msg":"webhook attempt"'))
      .map((l) => JSON.parse(l) as { outcome: string; duration_ms: number });
    expect(attempts.length).toBe(sampleValue(families.get("webhook_deliveries_total"), { result: "retry" }));
    for (const a of attempts) {
      expect(a.outcome).toBe("retry");
      expect(a.duration_ms).toBeGreaterThanOrEqual(0);
    }
  });

  it("answers 401 to a missing or wrong token, and costs little", async () => {
    const refused: Record<string, string>[] = [{}, { Authorization: "Bearer wrong-token-0123456789" }, { Authorization: `Basic ${TOKEN}` }];
    for (const headers of refused) {
      const res = await fetch(`${env.server.url}/api/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe("Bearer");
      expect(res.headers.get("content-type")).toBe("application/problem+json");
      const body = (await res.json()) as { status: number; request_id: string };
      expect(body.status).toBe(401);
      expect(body.request_id).toBe(res.headers.get("x-request-id"));
    }
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await (await fetch(`${env.server.url}/api/metrics`, { headers: auth })).text();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    // Generous for a shared test machine; docs/performance.md, "Metrics scrape" has the measurement at a million records.
    expect(times[10]).toBeLessThan(100);
  });
});

describe("metrics without METRICS_TOKEN", () => {
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("answer /api/metrics as any unknown path, and a malformed token stops the start", async () => {
    const dir = tempDir("disputes-metrics-off-");
    const env = { DATABASE_URL: `file:${path.join(dir, "d.sqlite")}`, APP_KEY_FILE: path.join(dir, "app.key") };
    server = await startServer({ ...env, METRICS_TOKEN: "" });
    const metrics = await fetch(`${server.url}/api/metrics`, { headers: auth });
    const unknown = await fetch(`${server.url}/api/no-such-route`, { headers: auth });
    expect(metrics.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(metrics.headers.get("content-type")).toBe(unknown.headers.get("content-type"));

    const bad = await runCli("import.ts", [], env).then(() => startServer({ ...env, METRICS_TOKEN: "short" }).then(
      (s) => s.stop().then(() => "started"),
      (err: Error) => err.message,
    ));
    expect(bad).toMatch(/exited \(1\)[\s\S]*METRICS_TOKEN must be at least 16/);
  });
});
