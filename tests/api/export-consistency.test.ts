import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importColumns } from "@/lib/domain/fields";
import { addShop, addUser, signIn } from "../helpers/accounts";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";
import { startServer, type TestServer } from "../helpers/server";
import { signedHeaders } from "./harness";

/**
 * The worklist export while an import commits (docs/api.md, "CSV export"): the test reads the
 * download slowly, imports a file with the real command part-way through, then reads the rest.
 * The file closes disputes the export has already passed, moves others to a later answer-by
 * date and adds new ones before the point the export has reached: an export that paged by
 * offset, or by keyset outside one snapshot, lists some disputes twice or leaves still-open ones
 * out. The export must list each dispute once, every dispute open before and after the import,
 * and (its snapshot) exactly the worklist as it stood when the download began. A record export
 * during an import (records never change; its batches follow its order to the ID) must list each
 * record once, every record there when it began, and of the new records those that sort after the
 * point it had reached.
 */

const SHOP = "SHOP-C";
const PASSWORD = "consistency-password";
const EMAIL = "consistency@example.test";
// The loopback connection holds about 4 MB that the server writes ahead of a reader that pauses
// (its send buffer grows to net.ipv4.tcp_wmem's largest), so each row carries about 2 KB of text
// and the download is about 10 MB: the server is still reading batches when the import commits.
// Small batches, so that it crosses many of them.
const DISPUTES = 5_000;
const BATCH = 100;
const MERCHANT_NAME = `Merchant ${"n".repeat(990)}`;
const CLOSED = 600;
const MOVED = 300;
const ADDED = 100;
// Paused after this many lines, before the disputes the import changes have all been passed.
const PAUSE_AFTER_LINES = 500;
const AS_OF = "2026-01-01";
// The server's PostgreSQL pool: half of it, 2, may hold downloads' snapshots (SQLite: 5).
const POOL = 4;

const day = (offset: number) => new Date(Date.UTC(2026, 0, 1 + offset)).toISOString().slice(0, 10);
const reference = (i: number) => `ARN-${String(i).padStart(6, "0")}`;

/** A first chargeback per dispute, processed over four weeks in reference order, so reference order is answer-by order. */
function chargeback(acqRefNr: string, processed: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...MINIMAL_ROW.chargeback, shop_code: SHOP, acq_ref_nr: acqRefNr, chb_proc_date: processed, merchant_name: MERCHANT_NAME, payment_id: `P-${acqRefNr}-${"p".repeat(800)}`, ...extra };
}

function writeFile(file: string, rows: Record<string, string>[]) {
  const columns = importColumns("chargeback");
  fs.writeFileSync(file, stringify([columns, ...rows.map((r) => columns.map((c) => r[c] ?? ""))]));
}

/** Connections of the database in an open transaction between statements (a paused download's snapshot). */
async function idleTransactions(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>("select count(*)::int as n from pg_stat_activity where datname = current_database() and state = 'idle in transaction' and pid <> pg_backend_pid()");
    return rows[0].n;
  } finally {
    await client.end();
  }
}

describe.each(backends)("exports during an import on $name", (backend) => {
  let server: TestServer;
  let env: Record<string, string>;
  let cookie: string;
  let dir: string;

  beforeAll(async () => {
    dir = tempDir("disputes-export-consistency-");
    env = { DATABASE_URL: await backend.create(), APP_KEY_FILE: path.join(dir, "app.key"), RATE_LIMIT_PER_MINUTE: "0", EXPORT_BATCH_SIZE: String(BATCH), PG_POOL_MAX: String(POOL) };
    const first = path.join(dir, "CHB_20260105.csv");
    writeFile(first, Array.from({ length: DISPUTES }, (_, i) => chargeback(reference(i), day(Math.floor((i * 28) / DISPUTES)))));
    const imported = await runCli("import.ts", [first], env);
    expect(imported.stdout).toBe(`${first}: imported ${DISPUTES} records\n`);
    await addShop(env, SHOP, PASSWORD);
    server = await startServer(env);
    await addUser(env, EMAIL, PASSWORD, [SHOP]);
    cookie = await signIn(server.url, EMAIL, PASSWORD);
  });

  afterAll(async () => {
    await server?.stop();
    await dropCreatedDatabases();
  });

  /** The worklist through the API, every page: each dispute (one shop: its acq_ref_nr), in order, and its answer-by date. */
  async function worklist(): Promise<{ keys: string[]; answerBy: Map<string, string> }> {
    const keys: string[] = [];
    const answerBy = new Map<string, string>();
    for (let page = 0; ; page++) {
      const res = await fetch(`${server.url}/api/worklist`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...signedHeaders(SHOP, PASSWORD) },
        body: JSON.stringify({ as_of: AS_OF, page, per_page: 1000 }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { content: { answer_by: string; record: { acq_ref_nr: string } }[]; totalPages: number };
      for (const item of body.content) {
        keys.push(item.record.acq_ref_nr);
        answerBy.set(item.record.acq_ref_nr, item.answer_by);
      }
      if (page + 1 >= body.totalPages) return { keys, answerBy };
    }
  }

  /**
   * A download read until PAUSE_AFTER_LINES lines and then held (its reader stops asking), and the
   * rest of it on request. Uncompressed, so that the bytes held on the way are the file's own (gzip
   * shrinks these rows to almost nothing, and the server would finish the download into the buffers).
   */
  async function pausedDownload(route: string): Promise<{ text: string; rest: () => Promise<string> }> {
    const res = await fetch(`${server.url}${route}`, { headers: { cookie, "Accept-Encoding": "identity" } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    let lines = 0;
    while (lines < PAUSE_AFTER_LINES) {
      const { done, value } = await reader.read();
      expect(done, "the export ended before the pause").toBe(false);
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      lines += chunk.split("\r\n").length - 1;
    }
    const rest = async () => {
      let all = text;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        all += decoder.decode(value, { stream: true });
      }
      return all + decoder.decode();
    };
    return { text, rest };
  }

  it("lists each dispute once, and every dispute open before and after the import", { timeout: 180_000 }, async () => {
    const before = await worklist();
    expect(before.keys).toHaveLength(DISPUTES);

    const download = await pausedDownload(`/api/export/worklist?as_of=${AS_OF}`);
    const readBeforeImport = download.text.length;

    // Closes the first CLOSED disputes (a reversal processed later becomes the current item),
    // gives the next MOVED an arbitration chargeback (a later answer-by date, still open), and
    // opens ADDED new disputes that are due before any other.
    const second = path.join(dir, "CHB_20260206.csv");
    const later = day(35);
    writeFile(second, [
      ...Array.from({ length: CLOSED }, (_, i) => chargeback(reference(i), later, { rev_indicator: "R" })),
      ...Array.from({ length: MOVED }, (_, i) => chargeback(reference(CLOSED + i), later, { function_code: "451" })),
      ...Array.from({ length: ADDED }, (_, i) => chargeback(`NEW-${i}`, day(-1))),
    ]);
    const imported = await runCli("import.ts", [second], env);
    expect(imported.stdout).toBe(`${second}: imported ${CLOSED + MOVED + ADDED} records\n`);
    // On PostgreSQL the download's snapshot shows: a transaction still open after the import committed.
    const openSnapshots = backend.name === "postgres" ? await idleTransactions(env.DATABASE_URL) : undefined;

    const text = await download.rest();
    // The test paused well before the end of the download.
    expect(readBeforeImport).toBeLessThan(text.length / 4);

    const after = await worklist();
    // The import did what the test relies on.
    expect(after.keys).toHaveLength(DISPUTES - CLOSED + ADDED);
    expect(after.answerBy.get(reference(CLOSED))).not.toBe(before.answerBy.get(reference(CLOSED)));

    const rows = parse(text, { bom: true, columns: true }) as Record<string, string>[];
    expect(new Set(rows.map((row) => row.shop_code))).toEqual(new Set([SHOP]));
    const exported = rows.map((row) => row.acq_ref_nr);
    const seen = new Set<string>();
    const twice = exported.filter((key) => seen.has(key) || !seen.add(key));
    const stillOpen = before.keys.filter((key) => after.answerBy.has(key));
    expect(stillOpen).toHaveLength(DISPUTES - CLOSED);
    const missing = stillOpen.filter((key) => !seen.has(key));
    expect(
      { twice: twice.length, missing: missing.length },
      `listed twice: ${twice.slice(0, 3).join(", ")}...; open before and after, left out: ${missing.slice(0, 3).join(", ")}...`,
    ).toEqual({ twice: 0, missing: 0 });
    // One snapshot: exactly the worklist as it stood when the download began, in its order.
    expect(exported.length).toBe(before.keys.length);
    expect(exported.findIndex((key, i) => key !== before.keys[i])).toBe(-1);
    if (openSnapshots !== undefined) expect(openSnapshots).toBe(1);
  });

  /** The records of a chargeback export in the grid's default order (file date, newest first), each as its file date and payment_id (a record's key here: a file names a payment once). */
  const exportedRecords = (text: string) => (parse(text, { bom: true, columns: true }) as Record<string, string>[]).map((row) => `${row.file_date} ${row.payment_id}`);

  it("a record export lists each record once while an import commits, and every record there when it began", { timeout: 180_000 }, async () => {
    const whole = await fetch(`${server.url}/api/export/chargeback`, { headers: { cookie } });
    expect(whole.status).toBe(200);
    const before = exportedRecords(await whole.text());
    expect(before.length).toBeGreaterThan(DISPUTES);

    const download = await pausedDownload("/api/export/chargeback");
    const readBeforeImport = download.text.length;

    // Two files in one command: one newer than every record (it sorts before the point reached,
    // so the download never shows it) and one older than every record (it sorts after it, so the
    // download shows all of it: each batch after the commit reads it).
    const newer = path.join(dir, "CHB_20260301.csv");
    const older = path.join(dir, "CHB_20251201.csv");
    writeFile(newer, Array.from({ length: ADDED }, (_, i) => chargeback(`NEWER-${i}`, "2026-02-27")));
    writeFile(older, Array.from({ length: ADDED }, (_, i) => chargeback(`OLDER-${i}`, "2025-11-27")));
    const imported = await runCli("import.ts", [older, newer], env);
    expect(imported.stdout).toBe(`${older}: imported ${ADDED} records\n${newer}: imported ${ADDED} records\n`);

    const text = await download.rest();
    expect(readBeforeImport).toBeLessThan(text.length / 4);

    const exported = exportedRecords(text);
    const seen = new Set<string>();
    const twice = exported.filter((key) => seen.has(key) || !seen.add(key));
    expect(twice, "listed twice").toEqual([]);
    // Every record there when the download began, in the same order as a download of its own...
    expect(exported.slice(0, before.length)).toEqual(before);
    // ...then the older file's records, all of them, and nothing of the newer file.
    const olderKeys = Array.from({ length: ADDED }, (_, i) => `2025-12-01 ${chargeback(`OLDER-${i}`, "").payment_id}`);
    expect(new Set(exported.slice(before.length))).toEqual(new Set(olderKeys));
    expect(exported).toHaveLength(before.length + ADDED);
  });

  /**
   * A worklist download whose answer has begun (status line and headers: the server has taken its
   * snapshot and read its first batch) and which then reads nothing more: a raw socket, paused. A
   * fetch would go on reading into its own buffers and let the kernel's grow (several MB on
   * loopback), so that a download of this size could end on the server; a socket that is never read
   * keeps the kernel's receive window at its first size, and the server waits on it.
   */
  async function heldDownload(): Promise<{ status: number; close: () => void }> {
    const socket = net.connect(server.port, "127.0.0.1");
    socket.write(`GET /api/export/worklist?as_of=${AS_OF} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nCookie: ${cookie}\r\nAccept-Encoding: identity\r\n\r\n`);
    const head = await new Promise<string>((resolve, reject) => {
      let text = "";
      const onData = (chunk: Buffer) => {
        text += chunk.toString("latin1");
        if (!text.includes("\r\n\r\n")) return;
        socket.pause();
        socket.off("data", onData);
        resolve(text);
      };
      socket.on("data", onData);
      socket.once("error", reject);
      socket.once("close", () => reject(new Error(`the download closed before its headers: ${JSON.stringify(text.slice(0, 200))}`)));
    });
    socket.removeAllListeners("close");
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), close: () => socket.destroy() };
  }

  it("holds at most its limit of worklist downloads at once: one more answers 503 with Retry-After, the searches go on, and a download that ends makes room", { timeout: 120_000 }, async () => {
    const limit = backend.name === "postgres" ? POOL / 2 : 5;
    const download = () => fetch(`${server.url}/api/export/worklist?as_of=${AS_OF}`, { headers: { cookie, "Accept-Encoding": "identity" } });
    const held: { close: () => void }[] = [];
    try {
      for (let i = 0; i < limit; i++) {
        const one = await heldDownload();
        held.push(one);
        expect(one.status, `download ${i + 1} of ${limit}`).toBe(200);
      }
      const refused = await download();
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("10");
      expect(((await refused.json()) as { detail: string }).detail).toBe("this server is already sending as many long downloads as it may; retry shortly");
      // Everything else goes on: the worklist through the API, every page, and a record export (batches without a snapshot of their own).
      expect((await worklist()).keys.length).toBeGreaterThan(0);
      const records = await fetch(`${server.url}/api/export/chargeback`, { headers: { cookie } });
      expect(records.status).toBe(200);
      expect((await records.text()).length).toBeGreaterThan(1_000_000);

      // A download that ends (here: its connection closed by the client) gives its snapshot back.
      held.shift()!.close();
      let again: Response | undefined;
      for (let tries = 0; tries < 50; tries++) {
        again = await download();
        if (again.status === 200) break;
        await again.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(again?.status).toBe(200);
      await again!.body!.cancel();
    } finally {
      for (const one of held) one.close();
    }
  });
});
