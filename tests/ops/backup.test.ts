import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_SHOPS, generateDemoFiles } from "@/lib/demo/generate";
import { newNonce, signedHeaders } from "../api/harness";
import { type CliResult, runCli, startCli } from "../helpers/cli";
import { tempDir } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";

/**
 * `npm run admin -- backup <path>` (docs/backups.md) against real processes: a copy taken while a
 * server answers and an import of about 100,000 records runs is a sound database holding whole
 * files only, and a server started on it serves the same totals and accepts the old credentials
 * while still refusing a nonce used before the backup. Existing paths and PostgreSQL are refused.
 */

const SHOP = DEMO_SHOPS[0].code;
const PASSWORD = "backup-password-1";
const ACCESS = DEMO_SHOPS.map((s) => s.code);

function must(result: CliResult, what: string): CliResult {
  if (result.code !== 0) throw new Error(`${what} failed (${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

async function search(server: TestServer, kind: "chargeback" | "pre_arbitration", nonce = newNonce()): Promise<{ status: number; total?: number }> {
  const res = await fetch(`${server.url}/api/${kind}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...signedHeaders(SHOP, PASSWORD, nonce) },
    body: "{}",
  });
  const body = (await res.json()) as { totalElements?: number };
  return { status: res.status, total: body.totalElements };
}

interface FileRow {
  id: number;
  name: string;
  kind: string;
  record_count: number;
}

function readOnly<T>(file: string, read: (db: BetterSqlite3.Database) => T): T {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const filesOf = (db: BetterSqlite3.Database) => db.prepare("select id, name, kind, record_count from imported_files order by id").all() as FileRow[];
const rowsOf = (db: BetterSqlite3.Database, table: string) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;

describe("backup of the SQLite database", () => {
  const dir = tempDir("disputes-backup-");
  const original = path.join(dir, "live", "disputes.sqlite");
  const copy = path.join(dir, "copies", "copy.sqlite");
  // The key file lives beside the database (no APP_SECRET, no APP_KEY_FILE): the backup copies it.
  const env = { DATABASE_URL: `file:${original}`, APP_SECRET: "", APP_KEY_FILE: "", RATE_LIMIT_PER_MINUTE: "0" };
  const folder = path.join(dir, "files");
  let server: TestServer | undefined;
  let restored: TestServer | undefined;

  beforeAll(async () => {
    generateDemoFiles({ out: folder, seed: 31, chargebacks: 100_000, preArbitrations: 6_000, start: "2026-01-05", end: "2026-03-27" });
    must(await runCli("admin.ts", ["shop", "add", SHOP, "--password", PASSWORD, "--access", ACCESS.join(",")], env), "shop add");
    server = await startServer(env);
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), restored?.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("refuses an existing path and leaves it untouched, and says to use pg_dump on PostgreSQL", async () => {
    const taken = path.join(dir, "taken.sqlite");
    fs.writeFileSync(taken, "not a database");
    const refused = await runCli("admin.ts", ["backup", taken], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already exists/);
    expect(fs.readFileSync(taken, "utf8")).toBe("not a database");
    // The state file beside it counts as the backup's too.
    fs.writeFileSync(path.join(dir, "other.state.sqlite"), "x");
    expect((await runCli("admin.ts", ["backup", path.join(dir, "other.sqlite")], env)).code).toBe(1);
    expect(fs.existsSync(path.join(dir, "other.sqlite"))).toBe(false);

    const pg = await runCli("admin.ts", ["backup", path.join(dir, "pg.sqlite")], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" });
    expect(pg.code).toBe(1);
    expect(pg.stderr).toMatch(/pg_dump/);
    expect(fs.existsSync(path.join(dir, "pg.sqlite"))).toBe(false);
  });

  it("copies whole files while an import and a server run; a server on the copy serves it with the old credentials", async () => {
    // A nonce spent before the backup: a restored server must still refuse it.
    const spent = newNonce();
    expect((await search(server!, "chargeback", spent)).status).toBe(200);

    const importing = startCli("import.ts", [folder], env);
    let importEnded = false;
    const imported = importing.done.then((r) => {
      importEnded = true;
      return r;
    });
    // Some files committed, most still to come.
    for (let i = 0; ; i++) {
      const files = fs.existsSync(original) ? readOnly(original, (db) => filesOf(db).length) : 0;
      if (files >= 3) break;
      if (importEnded || i > 600) throw new Error(`the import ended or stalled before the backup:\n${importing.stdout()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The server keeps answering while the backup runs.
    let backupEnded = false;
    const answers: number[] = [];
    const load = (async () => {
      while (!backupEnded) answers.push((await search(server!, "chargeback")).status);
    })();
    const started = Date.now();
    const backup = await runCli("admin.ts", ["backup", copy], env);
    backupEnded = true;
    await load;
    const tookMs = Date.now() - started;
    const importRunningAtEnd = !importEnded;
    must(backup, "backup");
    expect(backup.stdout).toMatch(/^backup written: /m);
    expect(backup.stdout).toMatch(/key file .*copied to /);
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((s) => s === 200)).toBe(true);

    const result = await imported;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(/rejected/);
    const all = readOnly(original, filesOf);
    expect(all.length).toBeGreaterThan(40);

    // A sound database of whole files: a prefix of the import, every file with all its records.
    const [integrity, stateIntegrity] = [copy, copy.replace(/\.sqlite$/, ".state.sqlite")].map((file) => readOnly(file, (db) => db.pragma("integrity_check", { simple: true })));
    expect(integrity).toBe("ok");
    expect(stateIntegrity).toBe("ok");
    const held = readOnly(copy, (db) => ({ files: filesOf(db), chargebacks: rowsOf(db, "chargebacks"), preArbitrations: rowsOf(db, "pre_arbitrations") }));
    expect(held.files).toEqual(all.slice(0, held.files.length));
    const sum = (kind: string) => held.files.filter((f) => f.kind === kind).reduce((n, f) => n + f.record_count, 0);
    expect(held.chargebacks).toBe(sum("chargeback"));
    expect(held.preArbitrations).toBe(sum("pre_arbitration"));
    expect(held.files.length).toBeGreaterThanOrEqual(3);
    if (importRunningAtEnd) expect(held.files.length).toBeLessThan(all.length);
    console.log(`backup: ${tookMs} ms, ${held.files.length} of ${all.length} files (${held.chargebacks + held.preArbitrations} records); the import ${importRunningAtEnd ? "was still running" : "had ended"} when it finished`);

    // A server on the copy as it is: the key file beside it, the same credentials, the same totals.
    restored = await startServer({ ...env, DATABASE_URL: `file:${copy}` });
    expect((await search(restored, "chargeback", spent)).status).toBe(401);
    expect(await search(restored, "chargeback")).toEqual({ status: 200, total: held.chargebacks });
    expect(await search(restored, "pre_arbitration")).toEqual({ status: 200, total: held.preArbitrations });
  }, 180_000);
});
