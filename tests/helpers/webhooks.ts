import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { expect } from "vitest";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { importColumns, type RecordKind } from "@/lib/domain/fields";
import { type CliResult, runCli } from "./cli";
import { type Backend, tempDir } from "./db";
import { MINIMAL_ROW } from "./import-rows";

/**
 * For the webhook tests (tests/fault/webhooks*.test.ts): a loopback receiver that checks every
 * signature the way the receiver example in docs/api.md, "Webhooks" does, acquirer files, and a database with endpoints
 * made by the real admin command.
 */

export const RETRY = [1, 2];
/**
 * WEBHOOK_LEASE_SECONDS of the tests: a claim left by a killed server expires after it, and an
 * attempt's time limit is two thirds of it (docs/api.md, "Webhooks"), longer than a "slow" answer.
 */
export const LEASE_SECONDS = 6;
export const TIMEOUT_MS = (LEASE_SECONDS * 1000 * 2) / 3;
// A claim is made at most one poll (1 s) after a delivery becomes due.
export const POLL_SLACK_MS = 1_600;
// The receiver notes a request once its body has arrived, a few ms after the sender started it.
export const CLOCK_SLACK_MS = 100;


export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, ms = 8_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await sleep(50);
  }
}

export function must(result: CliResult, what: string): CliResult {
  if (result.code !== 0) throw new Error(`${what} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

// ---- The receiver

export type Behaviour = "ok" | "fail-once" | "hang-once" | "always-500" | "slow";

/** How long a "slow" route takes to answer 200. */
export const SLOW_MS = 3_000;

export interface Hit {
  path: string;
  at: number;
  body: string;
  contentType: string | undefined;
  /** the signature checked against the endpoint's secret, within 300 s */
  signed: boolean;
  event: { id: string; type: string; created: number; data: { file_date: string; shop_codes: string[]; count: number } };
}

/** Verifies Dispute-Signature as a receiver should: HMAC of "<t>.<raw body>", constant-time, 300 s tolerance. */
function signatureValid(header: string | undefined, body: string, secret: string): boolean {
  const parts = Object.fromEntries((header ?? "").split(",").map((p) => p.split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!/^\d+$/.test(parts.t ?? "") || !/^[0-9a-f]{64}$/.test(parts.v1 ?? "")) return false;
  if (Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = crypto.createHmac("sha256", secret).update(`${parts.t}.${body}`).digest();
  return crypto.timingSafeEqual(expected, Buffer.from(parts.v1, "hex"));
}

export class Receiver {
  readonly hits: Hit[] = [];
  private readonly behaviours = new Map<string, Behaviour>();
  private readonly secrets = new Map<string, string>();
  private readonly seen = new Map<string, number>();
  private server!: http.Server;
  url = "";

  async start() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        const route = req.url ?? "";
        const event = JSON.parse(body) as Hit["event"];
        const header = req.headers["dispute-signature"];
        this.hits.push({
          path: route,
          at: Date.now(),
          body,
          contentType: req.headers["content-type"],
          signed: signatureValid(typeof header === "string" ? header : undefined, body, this.secrets.get(route) ?? "-"),
          event,
        });
        const key = `${route} ${event.id}`;
        const nth = (this.seen.get(key) ?? 0) + 1;
        this.seen.set(key, nth);
        const behaviour = this.behaviours.get(route) ?? "ok";
        if (behaviour === "hang-once" && nth === 1) return; // never answers
        if (behaviour === "slow") {
          setTimeout(() => res.end(), SLOW_MS);
          return;
        }
        res.statusCode = behaviour === "always-500" || (behaviour === "fail-once" && nth === 1) ? 500 : 200;
        res.end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  route(route: string, secret: string, behaviour: Behaviour = "ok") {
    this.secrets.set(route, secret);
    this.behaviours.set(route, behaviour);
  }

  at(route: string): Hit[] {
    return this.hits.filter((h) => h.path === route);
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

// ---- Files

let files: string | undefined;
let seq = 0;

/** An acquirer file of `kind` with `n` records of each named shop; `broken` adds an invalid row. */
export function writeFile(name: string, kind: RecordKind, shops: Record<string, number>, broken = false): string {
  const columns = importColumns(kind);
  const lines = [columns.join(",")];
  for (const [shop, n] of Object.entries(shops)) {
    for (let i = 0; i < n; i++) {
      const row: Record<string, string> = { ...MINIMAL_ROW[kind], shop_code: shop, acq_ref_nr: `ARN-${++seq}` };
      lines.push(columns.map((c) => row[c] ?? "").join(","));
    }
  }
  if (broken) {
    const row: Record<string, string> = { ...MINIMAL_ROW[kind], chb_amount: "lots", amount: "lots" };
    lines.push(columns.map((c) => row[c] ?? "").join(","));
  }
  files ??= tempDir("disputes-webhook-files-");
  const file = path.join(files, name);
  fs.writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

/** A database of the backend with shop credentials and the commands' environment. */
export class WebhookWorld {
  readonly ids: Record<string, string> = {};
  readonly receiver = new Receiver();
  env: Record<string, string> = {};
  db!: Db;

  /** `shops`: shop code -> access list ("a,b"). */
  async setUp(backend: Backend, shops: Record<string, string>) {
    const url = await backend.create();
    this.env = {
      DATABASE_URL: url,
      APP_KEY_FILE: path.join(tempDir("disputes-webhook-key-"), "app.key"),
      RATE_LIMIT_PER_MINUTE: "0",
      WEBHOOK_RETRY_SECONDS: RETRY.join(","),
      WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS),
      SHUTDOWN_TIMEOUT_SECONDS: "5",
    };
    await this.receiver.start();
    const addShop = async ([shop, access]: [string, string]) => must(await this.admin(["shop", "add", shop, "--password", "webhook-test-pw", "--access", access]), `shop add ${shop}`);
    // The first command creates the schema; the independent ones after it run together.
    const [first, ...rest] = Object.entries(shops);
    await addShop(first);
    await Promise.all(rest.map(addShop));
    this.db = await openDatabase(url);
  }

  async tearDown() {
    await this.receiver.stop();
    await this.db?.close();
  }

  admin(args: string[]): Promise<CliResult> {
    return runCli("admin.ts", args, this.env);
  }

  importFiles(...paths: string[]): Promise<CliResult> {
    return runCli("import.ts", paths, this.env);
  }

  /** Registers an endpoint for `shop` at the receiver's `route` with the real command. */
  async addEndpoint(shop: string, route: string, behaviour: Behaviour = "ok") {
    const out = must(await this.admin(["webhook", "add", shop, `${this.receiver.url}${route}`]), `webhook add ${shop}`).stdout;
    const id = /webhook (we_[0-9a-f]+) added/.exec(out)?.[1];
    const secret = /(whsec_\S+)/.exec(out)?.[1];
    expect(id).toBeDefined();
    expect(secret!.length).toBeGreaterThanOrEqual("whsec_".length + 32);
    this.receiver.route(route, secret!, behaviour);
    this.ids[route] = id!;
  }

  deliveries(route: string) {
    return this.db.db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", this.ids[route]).orderBy("id").execute();
  }

  attempts(route: string) {
    return this.db.db.selectFrom("webhook_attempts").selectAll().where("endpoint_id", "=", this.ids[route]).orderBy("delivery_id").orderBy("attempt").execute();
  }
}
