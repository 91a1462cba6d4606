import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIELDS_BY_KIND, importColumns, type RecordKind } from "@/lib/domain/fields";
import { addUser, signIn } from "../helpers/accounts";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";
import { startServer, type TestServer } from "../helpers/server";

/**
 * Every CSV export the server writes (docs/api.md, "CSV export") read back by a real CSV parser:
 * free text from an acquirer's file that holds a line feed, a carriage return, CRLF, quotes and
 * commas comes back field for field, one row per record or dispute. The records arrive through
 * the real import command and are served by `next start`.
 */

const SHOP = "quote-shop";
const EMAIL = "quoter@example.test";
const PASSWORD = "quoter-password";
// Each holds something a CSV reader would split on if it went out bare; none starts or ends with
// a space or a formula character, so the import keeps it and the export writes it as it stands.
const TEXTS = ["line one\nline two", "carriage\rreturn", "windows\r\nline", 'say "hi", then go', 'a,b\n"c"\r\nd\re,', 'end\n\n"'];
const ROWS_PER_KIND = TEXTS.length;
const FILES: Record<RecordKind, string> = { chargeback: "CHB_20260105.csv", pre_arbitration: "PREARB_29_20260105.csv" };
const KINDS = Object.keys(FILES) as RecordKind[];
// Every record below is due on this day (chargebacks processed 2026-01-02, cases of 2026-02-01).
const AS_OF = "2026-01-02";

/** The fields of a kind that hold free text from the file (not the shop code, not from the file name). */
const textColumns = (kind: RecordKind) => FIELDS_BY_KIND[kind].filter((d) => d.kind === "text" && !("fromFileName" in d && d.fromFileName));

/** Row i of a kind: every text field holds one of TEXTS (rotated, cut to its limit), the acquirer reference made unique. */
function sourceRow(kind: RecordKind, i: number): Record<string, string> {
  const row: Record<string, string> = { ...MINIMAL_ROW[kind], shop_code: SHOP };
  textColumns(kind).forEach((def, j) => {
    const text = TEXTS[(i + j) % TEXTS.length];
    row[def.name] = def.name === "acq_ref_nr" ? `${kind} ${i}: ${text}` : text.slice(0, def.maxLength ?? 1000);
  });
  return row;
}

const sourceRows = (kind: RecordKind) => Array.from({ length: ROWS_PER_KIND }, (_, i) => sourceRow(kind, i));

describe.each(backends)("CSV exports quote line breaks, quotes and commas on $name", (backend) => {
  let server: TestServer;
  let cookie: string;

  beforeAll(async () => {
    const dir = tempDir("disputes-csv-quoting-");
    const env = { DATABASE_URL: await backend.create(), APP_KEY_FILE: path.join(dir, "app.key"), RATE_LIMIT_PER_MINUTE: "0" };
    const files = KINDS.map((kind) => {
      const columns = importColumns(kind);
      const file = path.join(dir, FILES[kind]);
      fs.writeFileSync(file, stringify([columns, ...sourceRows(kind).map((r) => columns.map((c) => r[c] ?? ""))], { quoted: true, record_delimiter: "\r\n" }));
      return file;
    });
    const imported = await runCli("import.ts", files, env);
    expect(imported.stdout).toBe(files.map((f) => `${f}: imported ${ROWS_PER_KIND} records\n`).join(""));
    server = await startServer(env);
    await addUser(env, EMAIL, PASSWORD, [SHOP]);
    cookie = await signIn(server.url, EMAIL, PASSWORD);
  });

  afterAll(async () => {
    await server?.stop();
    await dropCreatedDatabases();
  });

  async function exported(what: string, query: string): Promise<Record<string, string>[]> {
    const res = await fetch(`${server.url}/api/export/${what}?${query}`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    // A record ends at any line break outside quotes, as in a spreadsheet program.
    return parse(await res.text(), { bom: true, columns: true, record_delimiter: ["\r\n", "\n", "\r"] }) as Record<string, string>[];
  }

  it.each(KINDS)("the %s export gives back every text field of every record", async (kind) => {
    const rows = await exported(kind, "sort=ID&dir=asc");
    const source = sourceRows(kind);
    expect(rows).toHaveLength(source.length);
    rows.forEach((row, i) => {
      expect(row.shop_code).toBe(SHOP);
      for (const def of textColumns(kind)) expect(row[def.name], `${kind} ${i} ${def.name}`).toBe(source[i][def.name]);
    });
    // Each kind of break went out in some field (the test would prove nothing without them).
    const written = rows.flatMap((row) => Object.values(row));
    for (const needle of ["\n", "\r", "\r\n", '"', ","]) expect(written.some((v) => v.includes(needle)), JSON.stringify(needle)).toBe(true);
  });

  it("the worklist export gives back every text field of every dispute", async () => {
    const rows = await exported("worklist", `as_of=${AS_OF}`);
    // One dispute per record: every acquirer reference is unique.
    expect(rows).toHaveLength(KINDS.length * ROWS_PER_KIND);
    const byReference = new Map(rows.map((row) => [row.acq_ref_nr, row]));
    expect(byReference.size).toBe(rows.length);
    for (const kind of KINDS) {
      for (const source of sourceRows(kind)) {
        const row = byReference.get(source.acq_ref_nr);
        expect(row, source.acq_ref_nr).toBeDefined();
        expect(row!.kind).toBe(kind);
        expect(row!.shop_code).toBe(SHOP);
        for (const name of ["merchant_id", "merchant_name", "payment_id", "payment_order_nr"]) expect(row![name], name).toBe(source[name] ?? "");
        if (kind === "pre_arbitration") expect(row!.stage).toBe(source.case_stage);
      }
    }
  });
});
