import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateDemoFiles } from "@/lib/demo/generate";
import { productionServerCommand, SERVER_NODE_FLAGS } from "@/server/command";
import { CREDENTIALS } from "../api/fixture";
import { type ApiEnv, setupApiEnv, signedHeaders } from "../api/harness";
import { addUser, signIn } from "../helpers/accounts";
import { ROOT, runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { freePort, startServer, type TestServer } from "../helpers/server";

/**
 * Operations of the production server (server/main.ts), against real processes on both backends:
 * request ids and the access log, browser safety headers, the configuration check at start, the
 * throttle of failed authentications, and the graceful shutdown.
 */

afterAll(dropCreatedDatabases);

interface LogLine {
  level: string;
  msg: string;
  request_id?: string;
  method?: string;
  path?: string;
  status?: number;
  duration_ms?: number;
  principal?: string;
  client?: string;
  [key: string]: unknown;
}

function logLines(server: TestServer): LogLine[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as LogLine);
}

/** The access line of one request, once the server has written it (just after the answer). */
async function accessLine(server: TestServer, requestId: string): Promise<LogLine> {
  for (let i = 0; i < 50; i++) {
    const line = logLines(server).find((l) => l.msg === "request" && l.request_id === requestId);
    if (line) return line;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no access line for ${requestId}`);
}

describe("the production server's command", () => {
  it("runs with the same Node flags from npm start as from the demo, the benchmark and the tests", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } };
    expect(pkg.scripts.start).toBe(`node ${SERVER_NODE_FLAGS.join(" ")} .worker/server.cjs`);
    expect(productionServerCommand(3000).args.slice(0, SERVER_NODE_FLAGS.length)).toEqual(SERVER_NODE_FLAGS);
  });
});

describe.each(backends)("production server on $name", (backend) => {
  let env: ApiEnv;
  beforeAll(async () => {
    env = await setupApiEnv(backend, { AUTH_FAILURES_PER_MINUTE: "5", TRUST_PROXY: "false" });
  });
  afterAll(async () => {
    await env?.server.stop();
  });

  describe("request ids and the access log", () => {
    it("names every answer with X-Request-Id and writes one JSON access line for it, with the caller", async () => {
      const res = await env.post("chargeback", {});
      expect(res.status).toBe(200);
      const id = res.headers.get("x-request-id");
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const line = await accessLine(env.server, id!);
      expect(line).toMatchObject({ level: "info", method: "POST", path: "/api/chargeback", status: 200, principal: `shop:${CREDENTIALS.wide.shop}`, client: "127.0.0.1" });
      expect(line.duration_ms).toBeGreaterThan(0);
    });

    it("puts the same id in problem bodies, and never logs a password, a signature or a card number", async () => {
      const nonce = "nonce-for-the-log-test-0001";
      const headers = signedHeaders(CREDENTIALS.wide.shop, CREDENTIALS.wide.password, nonce);
      const bad = await fetch(`${env.server.url}/api/chargeback`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: '{"per_page": 0}' });
      expect(bad.status).toBe(400);
      const body = (await bad.json()) as { request_id?: string };
      expect(body.request_id).toBe(bad.headers.get("x-request-id"));
      await accessLine(env.server, body.request_id!);
      const output = env.server.output();
      expect(output).not.toContain(CREDENTIALS.wide.password);
      expect(output).not.toContain(headers["X-Signature"]);
      for (const record of env.fixture.records.chargeback.slice(0, 20)) expect(output).not.toContain(String(record.card));
    });

    it("ignores a client's own X-Request-Id and X-Forwarded-For when no proxy is trusted", async () => {
      const res = await fetch(`${env.server.url}/api/live`, { headers: { "X-Request-Id": "chosen-by-the-client-123", "X-Forwarded-For": "6.6.6.6", "X-Dr-Client-Address": "7.7.7.7" } });
      expect(res.status).toBe(200);
      const id = res.headers.get("x-request-id")!;
      expect(id).not.toBe("chosen-by-the-client-123");
      expect((await accessLine(env.server, id)).client).toBe("127.0.0.1");
    });
  });

  describe("browser safety headers", () => {
    it("sends a nonce Content-Security-Policy without unsafe-inline scripts on pages, and the nonce is on every script", async () => {
      const res = await fetch(`${env.server.url}/login`);
      expect(res.status).toBe(200);
      const policy = res.headers.get("content-security-policy")!;
      const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
      expect(nonce).toBeTruthy();
      const scriptSrc = policy.split(";").find((d) => d.trim().startsWith("script-src"))!;
      expect(scriptSrc).not.toContain("unsafe-inline");
      expect(scriptSrc).not.toContain("unsafe-eval");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).toContain("object-src 'none'");
      const html = await res.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
      // A new nonce per answer.
      const again = await fetch(`${env.server.url}/login`);
      expect(again.headers.get("content-security-policy")).not.toBe(policy);
    });

    it("sends frame, type, referrer and CSP headers on API answers and errors too; HSTS only over https", async () => {
      for (const res of [await env.post("chargeback", {}), await fetch(`${env.server.url}/api/chargeback`, { method: "POST", body: "{}" }), await fetch(`${env.server.url}/api/openapi.json`)]) {
        expect(res.headers.get("x-content-type-options")).toBe("nosniff");
        expect(res.headers.get("x-frame-options")).toBe("DENY");
        expect(res.headers.get("referrer-policy")).toBe("same-origin");
        expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
        expect(res.headers.get("strict-transport-security")).toBeNull();
      }
      // Not behind a trusted proxy: a client's X-Forwarded-Proto does not make the answer https.
      const spoofed = await fetch(`${env.server.url}/api/live`, { headers: { "X-Forwarded-Proto": "https" } });
      expect(spoofed.headers.get("strict-transport-security")).toBeNull();
    });
  });

  describe("liveness and readiness", () => {
    it("answers /api/live without the database and /api/ready (and /api/health) with it", async () => {
      expect(await (await fetch(`${env.server.url}/api/live`)).json()).toEqual({ status: "alive" });
      expect(await (await fetch(`${env.server.url}/api/ready`)).json()).toEqual({ status: "ok" });
      expect((await fetch(`${env.server.url}/api/health`)).status).toBe(200);
    });
  });

  describe("failed authentications per client address", () => {
    it("answers 429 with Retry-After once an address has failed too often, before looking at its credentials", async () => {
      const send = (headers: Record<string, string>) =>
        fetch(`${env.server.url}/api/chargeback`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: "{}" });
      // Requests without any credentials guess nothing and are not counted.
      for (let i = 0; i < 8; i++) expect((await send({})).status).toBe(401);
      for (let i = 0; i < 5; i++) expect((await send(signedHeaders(CREDENTIALS.wide.shop, "wrong-password"))).status).toBe(401);
      const refused = await send(signedHeaders(CREDENTIALS.wide.shop, "wrong-password"));
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/failed authentications from your address/);
      // Even a correct signature waits: the address is throttled, not the guess.
      expect((await send(signedHeaders(CREDENTIALS.wide.shop, CREDENTIALS.wide.password))).status).toBe(429);
    });
  });
});

describe.each(backends)("behind a trusted proxy on $name", (backend) => {
  let env: ApiEnv;
  beforeAll(async () => {
    env = await setupApiEnv(backend, { AUTH_FAILURES_PER_MINUTE: "2", TRUST_PROXY: "true" });
  });
  afterAll(async () => {
    await env?.server.stop();
  });

  it("takes the client address from X-Forwarded-For and https from X-Forwarded-Proto (HSTS), and throttles per address", async () => {
    const send = (address: string, password: string) =>
      fetch(`${env.server.url}/api/chargeback`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Forwarded-For": `10.9.9.9, ${address}`, "X-Forwarded-Proto": "https", ...signedHeaders(CREDENTIALS.wide.shop, password) },
        body: "{}",
      });
    const first = await send("203.0.113.7", "wrong-password");
    expect(first.status).toBe(401);
    expect(first.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
    expect(first.headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
    expect((await accessLine(env.server, first.headers.get("x-request-id")!)).client).toBe("203.0.113.7");
    expect((await send("203.0.113.7", "wrong-password")).status).toBe(401);
    expect((await send("203.0.113.7", CREDENTIALS.wide.password)).status).toBe(429);
    // Another address is not held back by the first one's failures.
    expect((await send("203.0.113.8", CREDENTIALS.wide.password)).status).toBe(200);
  });
});

describe("configuration checked at start", () => {
  async function startWith(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const port = await freePort();
    const { command, args } = productionServerCommand(port, "127.0.0.1");
    return new Promise((resolve) => {
      const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, NODE_ENV: "production", DATABASE_URL: `file:${path.join(tempDir(), "d.sqlite")}`, ...env } });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  }

  it.each([
    [{ RATE_LIMIT_PER_MINUTE: "lots" }, /RATE_LIMIT_PER_MINUTE must be a whole number/],
    [{ DEADLINE_DAYS_MC_FIRST_CHARGEBACK: "400" }, /DEADLINE_DAYS_MC_FIRST_CHARGEBACK must be a whole number of days/],
    [{ SESSION_TTL_HOURS: "-2" }, /SESSION_TTL_HOURS/],
    [{ TRUST_PROXY: "maybe" }, /TRUST_PROXY must be true or false/],
    [{ DATABASE_URL: "mysql://x" }, /DATABASE_URL must be/],
    [{ LOG_LEVEL: "loud" }, /LOG_LEVEL must be one of/],
    [{ WEBHOOK_RETRY_SECONDS: "60,0,300" }, /WEBHOOK_RETRY_SECONDS must be comma-separated whole seconds/],
    [{ WEBHOOK_RETRY_SECONDS: "1m" }, /WEBHOOK_RETRY_SECONDS must be comma-separated whole seconds/],
    [{ MAIL_RETRY_SECONDS: "60,,300" }, /MAIL_RETRY_SECONDS must be comma-separated whole seconds/],
    [{ SMTP_URL: "http://mail.example.com" }, /SMTP_URL must be smtp:\/\/\[user:password@\]host:port/],
    [{ SMTP_URL: "smtp://u:s3cret-pw@" }, /^configuration error: SMTP_URL must be (?!.*s3cret-pw)/],
    [{ APP_URL: "ftp://disputes.example.com" }, /APP_URL must be the dashboard's http\(s\) address/],
    [{ MAIL_FROM: "nobody" }, /MAIL_FROM must be an address/],
    [{ IMPORT_GROUP_BYTES: "1000" }, /IMPORT_GROUP_BYTES must be a whole number from 65536 to 1073741824/],
  ])("refuses to start with %o, in one clear line", async (bad, message) => {
    const result = await startWith(bad);
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^configuration error: /);
    expect(lines[0]).toMatch(message);
    expect(result.stdout).not.toContain("ready on");
  });
});

describe.each(backends)("graceful shutdown on $name", (backend) => {
  it("on SIGTERM: readiness 503 at once, requests in flight (a long export) finish whole, then the pools close and the process exits 0", async () => {
    const databaseUrl = await backend.create();
    const dir = tempDir("disputes-shutdown-");
    const env = { DATABASE_URL: databaseUrl, APP_KEY_FILE: path.join(dir, "app.key"), RATE_LIMIT_PER_MINUTE: "0", SHUTDOWN_DELAY_SECONDS: "1" };
    const files = path.join(dir, "files");
    const demo = generateDemoFiles({ out: files, seed: 7, chargebacks: 20_000, preArbitrations: 10, end: "2026-03-31", days: 20 });
    const imported = await runCli("import.ts", [files], env);
    expect(imported.code, imported.stderr).toBe(0);
    const server = await startServer(env);
    await addUser(env, "night-shift@example.test", "user-password", demo.shops.map((s) => s.code));
    const cookie = await signIn(server.url, "night-shift@example.test", "user-password");

    // An export read slowly, so that it is still streaming when the signal arrives.
    let received = "";
    let firstChunk: () => void = () => {};
    const started = new Promise<void>((resolve) => (firstChunk = resolve));
    const exportDone = new Promise<{ status: number; complete: boolean }>((resolve, reject) => {
      const req = http.get(`${server.url}/api/export/chargeback`, { headers: { Cookie: cookie } }, (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          received += chunk;
          firstChunk();
          res.pause();
          setTimeout(() => res.resume(), 15);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, complete: res.complete }));
        res.on("error", reject);
      });
      req.on("error", reject);
    });
    await started;

    process.kill(server.pid, "SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    // Draining: not ready, still alive and still serving during the delay.
    const ready = await fetch(`${server.url}/api/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "draining" });
    expect((await fetch(`${server.url}/api/live`)).status).toBe(200);

    const result = await exportDone;
    expect(result.status).toBe(200);
    expect(result.complete).toBe(true);
    const lines = received.replace(/^\uFEFF/, "").trimEnd().split("\r\n");
    expect(lines.length - 1).toBe(20_000);

    // After the delay the server stops accepting and exits by itself.
    await server.exited;
    expect(server.exitCode()).toBe(0);
    await expect(fetch(`${server.url}/api/live`)).rejects.toThrow();
    const stopped = logLines(server).find((l) => l.msg === "stopped");
    expect(stopped).toMatchObject({ clean: true });
  }, 120_000);
});
