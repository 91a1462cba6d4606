import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { importColumns } from "@/lib/domain/fields";
import { TEST_PAUSE_ENV } from "@/lib/import/inbox";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";
import { parseExposition, sampleValue } from "../helpers/prometheus";
import { freePort, startServer, type TestServer } from "../helpers/server";

/**
 * The import inbox (docs/api.md, "Import inbox") on real production servers on both backends:
 * files there at the start, a slow writer, a `.part` renamed, a refused file with its problems
 * (the command's very lines), a resent file and name clashes, names left alone, the folder removed
 * and made again, two servers on one folder, and a server killed with SIGKILL between an import's
 * commit and the move (the inbox's test hook holds it there).
 */

afterAll(dropCreatedDatabases);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms / 1000} s`);
    await sleep(100);
  }
}

const COLUMNS = importColumns("chargeback");
const HEADER = `${COLUMNS.join(",")}\n`;
/** One chargeback row; `bad` makes its amount invalid. */
const row = (payment: string, bad = false) => `${COLUMNS.map((c) => (c === "payment_id" ? payment : c === "chb_amount" && bad ? "12.345" : ((MINIMAL_ROW.chargeback as Record<string, string>)[c] ?? ""))).join(",")}\n`;
const file = (tag: string, n: number) => HEADER + Array.from({ length: n }, (_, i) => row(`${tag}-${i + 1}`)).join("");

const exists = (...parts: string[]) => fs.existsSync(path.join(...parts));
const listing = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

/** The server's "import file" lines (one per inbox file, with outcome and duration). */
function importLines(server: TestServer): { source: string; file: string; outcome: string; records?: number; problems?: number; duration_ms: number; kind: string }[] {
  return server
    .output()
    .split("\n")
    .filter((line) => line.startsWith('{"') && line.endsWith("}"))
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === "import file");
}

describe.each(backends)("import inbox on $name", (backend) => {
  let url: string;
  let db: Db;
  let inbox: string;
  const servers: TestServer[] = [];
  let server: TestServer;
  const TOKEN = "inbox-metrics-token-0123456789";
  const APP_SECRET = "inbox-test-secret-0123456789";
  let smtp: string;

  const records = async () => Number((await db.db.selectFrom("chargebacks").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
  const deliveries = async () => Number((await db.db.selectFrom("webhook_deliveries").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
  const alerts = async () =>
    Number((await db.db.selectFrom("mail_messages").select((eb) => eb.fn.countAll().as("n")).where("kind", "=", "alert").executeTakeFirstOrThrow()).n);
  const paymentsOf = async (prefix: string) =>
    (await db.db.selectFrom("chargebacks").select("payment_id").where("payment_id", "like", `${prefix}-%`).execute()).length;
  const start = async (env: Record<string, string>) => {
    const started = await startServer({ DATABASE_URL: url, METRICS_TOKEN: TOKEN, APP_SECRET, SMTP_URL: smtp, ...env });
    servers.push(started);
    return started;
  };

  beforeAll(async () => {
    url = await backend.create();
    // A webhook endpoint of shop-1 (the rows' shop) that nobody listens on: each imported file stores its event.
    const admin = (args: string[]) => runCli("admin.ts", args, { DATABASE_URL: url, APP_SECRET });
    expect((await admin(["shop", "add", "shop-1", "--password", "long-secret-1"])).code).toBe(0);
    expect((await admin(["webhook", "add", "shop-1", `http://127.0.0.1:${await freePort()}/hook`])).code).toBe(0);
    // A user of shop-1 with new-dispute alerts, and an SMTP server nobody runs: each imported file stores its alert.
    expect((await admin(["user", "add", "ana@example.com", "--password", "long-secret-2", "--access", "shop-1"])).code).toBe(0);
    expect((await admin(["user", "mail", "ana@example.com", "--alerts", "on"])).code).toBe(0);
    smtp = `smtp://127.0.0.1:${await freePort()}`;
    inbox = path.join(tempDir(), "inbox");
    fs.mkdirSync(inbox);
    // There before the server starts.
    fs.writeFileSync(path.join(inbox, "CHB_20260101.csv"), file("start", 3));
    // Names the inbox leaves where they are.
    fs.writeFileSync(path.join(inbox, "notes.txt"), "not an import\n");
    fs.writeFileSync(path.join(inbox, ".CHB_20260109.csv"), file("hidden", 1));
    fs.mkdirSync(path.join(inbox, "sub.csv"));
    server = await start({ IMPORT_INBOX: inbox });
    db = await openDatabase(url);
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.close();
  });

  it("imports the files there at the start, moves them to imported/, logs and counts each, and stores its webhook event and alert", async () => {
    await until("CHB_20260101.csv moved", () => exists(inbox, "imported", "CHB_20260101.csv"));
    expect(exists(inbox, "CHB_20260101.csv")).toBe(false);
    expect(await paymentsOf("start")).toBe(3);
    expect(exists(inbox, "rejected")).toBe(true);
    const line = importLines(server).find((l) => l.file === "CHB_20260101.csv");
    expect(line).toMatchObject({ source: "inbox", kind: "chargeback", outcome: "imported", records: 3 });
    expect(typeof line?.duration_ms).toBe("number");
    const res = await fetch(`${server.url}/api/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const families = parseExposition(await res.text());
    expect(sampleValue(families.get("import_files_total"), { kind: "chargeback", result: "imported" })).toBe(1);
    expect(sampleValue(families.get("import_records_total"), { kind: "chargeback" })).toBe(3);
    // Its webhook event and its alert, stored with its records, as the command stores them.
    expect(await deliveries()).toBe(1);
    expect(await alerts()).toBe(1);
  });

  it("does not read a file while it grows, nor a .part file; takes each once it has arrived", async () => {
    // A slow writer: a row every 400 ms for about 3 s. Read early, it would load fewer rows or be refused.
    const slow = path.join(inbox, "CHB_20260102.csv");
    fs.writeFileSync(slow, HEADER);
    const part = path.join(inbox, "CHB_20260103.csv.part");
    fs.writeFileSync(part, file("part", 2));
    for (let i = 1; i <= 8; i++) {
      await sleep(400);
      fs.appendFileSync(slow, row(`slow-${i}`));
      expect(exists(inbox, "imported", "CHB_20260102.csv")).toBe(false);
    }
    const written = Date.now();
    await until("the slow file moved", () => exists(inbox, "imported", "CHB_20260102.csv"), 10_000);
    expect(Date.now() - written).toBeGreaterThanOrEqual(1_900);
    expect(await paymentsOf("slow")).toBe(8);
    // The .part file stayed where it is, unread, all this time.
    expect(exists(part)).toBe(true);
    expect(await paymentsOf("part")).toBe(0);
    fs.renameSync(part, path.join(inbox, "CHB_20260103.csv"));
    await until("the renamed file moved", () => exists(inbox, "imported", "CHB_20260103.csv"), 10_000);
    expect(await paymentsOf("part")).toBe(2);
    expect(listing(inbox)).toEqual([".CHB_20260109.csv", "imported", "notes.txt", "rejected", "sub.csv"]);
    expect(await paymentsOf("hidden")).toBe(0);
  });

  it("moves a refused file to rejected/ with the lines npm run import prints for it beside it", async () => {
    const text = HEADER + row("bad-1") + row("bad-2", true) + row("bad-3", true);
    fs.writeFileSync(path.join(inbox, "CHB_20260104.csv"), text);
    // What the command prints for the same file, at the same path, into a database of its own.
    const elsewhere = tempDir();
    const copy = path.join(elsewhere, "inbox", "CHB_20260104.csv");
    fs.mkdirSync(path.dirname(copy));
    fs.writeFileSync(copy, text);
    const command = await runCli("import.ts", [path.join(elsewhere, "inbox")], { DATABASE_URL: `file:${path.join(elsewhere, "db.sqlite")}` });
    expect(command.code).toBe(1);
    const expected = command.stdout.replaceAll(path.join(elsewhere, "inbox"), inbox);
    expect(expected).toMatch(/CHB_20260104\.csv:3: chb_amount: /);

    await until("the refused file moved", () => exists(inbox, "rejected", "CHB_20260104.csv"));
    expect(fs.readFileSync(path.join(inbox, "rejected", "CHB_20260104.csv.problems.txt"), "utf8")).toBe(expected);
    expect(await paymentsOf("bad")).toBe(0);
    expect(importLines(server).find((l) => l.file === "CHB_20260104.csv")).toMatchObject({ outcome: "rejected", problems: 2 });
  });

  it("skips a resent file and moves it beside the first under the next free name", async () => {
    const before = await records();
    const events = await deliveries();
    const mail = await alerts();
    fs.writeFileSync(path.join(inbox, "CHB_20260101.csv"), file("start", 3));
    await until("the resent file moved", () => exists(inbox, "imported", "CHB_20260101.1.csv"));
    fs.writeFileSync(path.join(inbox, "CHB_20260101.csv"), file("start", 3));
    await until("the second resend moved", () => exists(inbox, "imported", "CHB_20260101.2.csv"));
    expect(await records()).toBe(before);
    expect(await deliveries()).toBe(events);
    expect(await alerts()).toBe(mail);
    expect(importLines(server).filter((l) => l.file === "CHB_20260101.csv").map((l) => l.outcome)).toEqual(["imported", "skipped", "skipped"]);
    // A refused name again: rejected/ gets its .1 with its own problems.
    fs.writeFileSync(path.join(inbox, "CHB_20260104.csv"), HEADER + row("bad-9", true));
    await until("the second refused file moved", () => exists(inbox, "rejected", "CHB_20260104.1.csv"));
    expect(fs.readFileSync(path.join(inbox, "rejected", "CHB_20260104.1.csv.problems.txt"), "utf8")).toMatch(/CHB_20260104\.csv: rejected \(1 problems\)\n$/);
  });

  it("logs a folder that disappears, keeps running, and imports again once it is made again", async () => {
    fs.rmSync(inbox, { recursive: true });
    await until("the missing folder logged", () => server.output().includes("import inbox: the folder cannot be read"), 5_000);
    await sleep(1_500);
    expect(server.alive()).toBe(true);
    fs.mkdirSync(inbox);
    fs.writeFileSync(path.join(inbox, "CHB_20260105.csv"), file("back", 2));
    await until("a file of the new folder moved", () => exists(inbox, "imported", "CHB_20260105.csv"));
    expect(await paymentsOf("back")).toBe(2);
    expect(server.alive()).toBe(true);
    expect((await fetch(`${server.url}/api/live`)).status).toBe(200);
  });

  it("imports each file once with two servers on the folder", async () => {
    const second = await start({ IMPORT_INBOX: inbox });
    const names = Array.from({ length: 6 }, (_, i) => `CHB_202602${String(i + 10)}.csv`);
    for (const [i, name] of names.entries()) fs.writeFileSync(path.join(inbox, name), file(`two${i}`, 4));
    await until("all six moved", () => names.every((name) => exists(inbox, "imported", name)), 20_000);
    for (let i = 0; i < names.length; i++) expect(await paymentsOf(`two${i}`)).toBe(4);
    const lines = [...importLines(server), ...importLines(second)].filter((l) => names.includes(l.file));
    expect(lines.map((l) => `${l.file} ${l.outcome}`).sort()).toEqual(names.map((name) => `${name} imported`));
    expect(listing(path.join(inbox, "imported")).filter((name) => /\.\d\.csv$/.test(name) && name.startsWith("CHB_2026021"))).toEqual([]);
    await second.stop();
  });

  it("after a SIGKILL between the commit and the move, moves the file at the next start as skipped, its records once", async () => {
    const folder = path.join(tempDir(), "inbox");
    fs.mkdirSync(folder);
    const held = await start({ IMPORT_INBOX: folder, [TEST_PAUSE_ENV]: "60000" });
    const before = await records();
    fs.writeFileSync(path.join(folder, "CHB_20260301.csv"), file("killed", 5));
    await until("the pause before the move", () => held.output().includes("import inbox: waiting before the move (test hook)"));
    // Committed, not moved.
    expect(await paymentsOf("killed")).toBe(5);
    expect(exists(folder, "CHB_20260301.csv")).toBe(true);
    process.kill(held.pid, "SIGKILL");
    await held.exited;

    const restarted = await start({ IMPORT_INBOX: folder });
    await until("moved after the restart", () => exists(folder, "imported", "CHB_20260301.csv"), 20_000);
    expect(exists(folder, "CHB_20260301.csv")).toBe(false);
    expect(importLines(restarted).filter((l) => l.file === "CHB_20260301.csv")).toMatchObject([{ outcome: "skipped" }]);
    expect(await paymentsOf("killed")).toBe(5);
    expect(await records()).toBe(before + 5);
    await restarted.stop();
    // Nothing of all this was an error of the inbox itself.
    for (const s of servers) expect(s.output()).not.toMatch(/import inbox: (failed|the file could not be moved)/);
  });
});
