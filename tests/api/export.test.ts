import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIELDS_BY_KIND, importColumns, isTextKind, type RecordKind } from "@/lib/domain/fields";
import { addUser, signIn } from "../helpers/accounts";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";
import { startServer, type TestServer } from "../helpers/server";

/**
 * The CSV export's guard against spreadsheet formula injection, through the real import, the real
 * admin command and `next start`: every text cell an acquirer's file can start with = + - @ comes
 * out with a leading quote, whichever field holds it (the guard follows the field kinds of
 * lib/domain/fields.ts, not a list), the shop code too; negative amounts stay numbers.
 */

const FORMULA_SHOP = "=SHOP";
const PLAIN_SHOP = "plain-shop";
const EMAIL = "exporter@example.test";
const PASSWORD = "exporter-password";

// What an attacker would put in a cell, one per leading character the guard knows of (a leading
// tab or CR cannot arrive: the import trims cells).
const FORMULAS = ["=1+2", '+cmd|" /C calc"!A0', "-2+3", "@SUM(A1:A2)", '=HYPERLINK("http://x.test","y")'];

const FILES: Record<RecordKind, string> = { chargeback: "CHB_20260105.csv", pre_arbitration: "PREARB_29_20260105.csv" };

/** The fields of a kind that hold free text from the file: every one gets a formula. */
const textColumns = (kind: RecordKind) => FIELDS_BY_KIND[kind].filter((d) => d.kind === "text" && !("fromFileName" in d && d.fromFileName)).map((d) => d.name);
const amountColumns = (kind: RecordKind) => FIELDS_BY_KIND[kind].filter((d) => d.kind === "amount").map((d) => d.name);

function formulaRow(kind: RecordKind): Record<string, string> {
  const row: Record<string, string> = { ...MINIMAL_ROW[kind], shop_code: FORMULA_SHOP };
  textColumns(kind).forEach((name, i) => {
    const max = FIELDS_BY_KIND[kind].find((d) => d.name === name)!.maxLength ?? 1000;
    row[name] = FORMULAS[i % FORMULAS.length].slice(0, max);
  });
  amountColumns(kind).forEach((name, i) => (row[name] = ["-12.5", "  -0.05", "-1000000"][i % 3]));
  return row;
}

function plainRow(kind: RecordKind): Record<string, string> {
  const row: Record<string, string> = { ...MINIMAL_ROW[kind], shop_code: PLAIN_SHOP };
  textColumns(kind).forEach((name) => (row[name] = "a=b+c-d@e"));
  amountColumns(kind).forEach((name) => (row[name] = "7.25"));
  return row;
}

const FORMULA_START = /^[=+\-@\t\r]/;

describe.each(backends)("CSV export formula guard on $name", (backend) => {
  let server: TestServer;
  let cookie: string;

  beforeAll(async () => {
    const dir = tempDir("disputes-export-");
    const env = { DATABASE_URL: await backend.create(), APP_KEY_FILE: path.join(dir, "app.key"), RATE_LIMIT_PER_MINUTE: "0" };
    const files = (Object.keys(FILES) as RecordKind[]).map((kind) => {
      const columns = importColumns(kind);
      const file = path.join(dir, FILES[kind]);
      fs.writeFileSync(file, stringify([columns, ...[formulaRow(kind), plainRow(kind)].map((r) => columns.map((c) => r[c] ?? ""))]));
      return file;
    });
    const imported = await runCli("import.ts", files, env);
    expect(imported.stdout).toBe(files.map((f) => `${f}: imported 2 records\n`).join(""));
    server = await startServer(env);
    await addUser(env, EMAIL, PASSWORD, [FORMULA_SHOP, PLAIN_SHOP]);
    cookie = await signIn(server.url, EMAIL, PASSWORD);
  });

  afterAll(async () => {
    await server?.stop();
    await dropCreatedDatabases();
  });

  it.each(Object.keys(FILES) as RecordKind[])("quotes every text cell of a %s that a spreadsheet would run, and no number", async (kind) => {
    // The fields the brief names are among those the kinds select.
    expect(textColumns(kind)).toEqual(expect.arrayContaining(["acq_ref_nr", "merchant_id", "merchant_name", "payment_id", "xid", "payment_order_nr"]));
    // In import order (the grids' default is newest first).
    const res = await fetch(`${server.url}/api/export/${kind}?sort=ID&dir=asc`, { headers: { cookie } });
    expect(res.status).toBe(200);
    const rows = parse(await res.text(), { bom: true, columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.shop_code)).toEqual([`'${FORMULA_SHOP}`, PLAIN_SHOP]);
    const [risky, plain] = rows;
    const source = formulaRow(kind);

    const quoted: string[] = [];
    for (const def of FIELDS_BY_KIND[kind]) {
      const value = source[def.name];
      if (def.kind === "amount") continue;
      if (value === undefined) continue; // bank_id, file_date: from the file name
      if (FORMULA_START.test(value)) {
        expect(isTextKind(def.kind), def.name).toBe(true);
        expect(risky[def.name], def.name).toBe(`'${value}`);
        quoted.push(def.name);
      } else {
        expect(risky[def.name], def.name).toBe(value.trim());
      }
    }
    expect(quoted.sort()).toEqual(textColumns(kind).sort());
    // Negative amounts are numbers: exact, with two decimals, never quoted.
    const amounts = amountColumns(kind);
    expect(amounts.length).toBeGreaterThan(0);
    amounts.forEach((name, i) => expect(risky[name], name).toBe(["-12.50", "-0.05", "-1000000.00"][i % 3]));

    // A row with nothing to fear is written as it stands.
    for (const name of textColumns(kind)) expect(plain[name], name).toBe("a=b+c-d@e");
    for (const name of amounts) expect(plain[name], name).toBe("7.25");
  });
});
