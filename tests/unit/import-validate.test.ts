import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { importColumns, type RecordKind } from "@/lib/domain/fields";
import { CsvSyntaxError, csvRecords } from "@/lib/import/csv-records";
import { parseFileName } from "@/lib/import/file-name";
import { checkHeader, isDateTime, normaliseCell, rowValidator } from "@/lib/import/validate";
import { tempDir } from "../helpers/db";
import { MINIMAL_ROW } from "../helpers/import-rows";

const VALID = MINIMAL_ROW;

/** Validates one row: the valid row of the kind with `cells` changed. */
function check(kind: RecordKind, cells: Record<string, string>) {
  const validator = rowValidator(kind);
  const row = { ...VALID[kind], ...cells };
  return validator.validate(
    validator.columns.map((c) => row[c] ?? ""),
    7,
  );
}

const fieldsWithProblems = (kind: RecordKind, cells: Record<string, string>) => {
  const result = check(kind, cells);
  return "problems" in result ? result.problems.map((p) => p.field) : [];
};
const value = (kind: RecordKind, field: string, cell: string) => {
  const result = check(kind, { [field]: cell });
  if ("problems" in result) throw new Error(JSON.stringify(result.problems));
  return result.values[field];
};

describe("normaliseCell", () => {
  it("makes empty cells null and trims, but keeps an indicator of only spaces as one space", () => {
    expect(normaliseCell("merchant_name", "")).toBeNull();
    expect(normaliseCell("merchant_name", "   ")).toBeNull();
    expect(normaliseCell("merchant_name", "  a b  ")).toBe("a b");
    expect(normaliseCell("doc_indicator", "   ")).toBe(" ");
    expect(normaliseCell("rev_indicator", " ")).toBe(" ");
    expect(normaliseCell("rev_indicator", "")).toBeNull();
    expect(normaliseCell("rev_indicator", " R ")).toBe("R");
    expect(normaliseCell("doc_indicator", "\t")).toBeNull();
  });
});

describe("rowValidator", () => {
  it("accepts the minimal rows and returns database values", () => {
    const cb = check("chargeback", {});
    expect(cb).toEqual({ values: expect.objectContaining({ chb_amount: 1000n, reason_code: 4837, function_code: 450, merchant_name: null, shop_code: "shop-1" }) });
    expect(check("pre_arbitration", {})).toEqual({ values: expect.objectContaining({ amount: 500n, fdl_comments: null }) });
  });

  it("names every empty required cell", () => {
    const required = {
      chargeback: ["shop_code", "card", "acq_ref_nr", "merchant_id", "payment_id", "reason_code", "function_code", "card_type", "chb_proc_date", "chb_amount", "chb_ccy"],
      pre_arbitration: ["shop_code", "card", "acq_ref_nr", "merchant_id", "payment_id", "amount", "ccy", "case_date", "case_stage"],
    } as const;
    for (const kind of ["chargeback", "pre_arbitration"] as const) {
      const empty = Object.fromEntries(importColumns(kind).map((c) => [c, ""]));
      expect(fieldsWithProblems(kind, empty).sort()).toEqual([...required[kind]].sort());
      const result = check(kind, { card: " " });
      expect(result).toEqual({ problems: [{ line: 7, field: "card", message: "is required: the cell is empty" }] });
    }
  });

  it("reads amounts exactly, left padding allowed, at most two decimals", () => {
    expect(value("chargeback", "chb_amount", "   12.5")).toBe(1250n);
    expect(value("chargeback", "chb_amount", "0")).toBe(0n);
    expect(value("chargeback", "chb_amount", "999999999999.99")).toBe(99999999999999n);
    expect(value("chargeback", "tr_amount", "")).toBeNull();
    for (const bad of ["1.234", "1,50", "12.", ".5", "1e3", "EUR 5", "10000000000000.00"]) expect(fieldsWithProblems("chargeback", { chb_amount: bad })).toEqual(["chb_amount"]);
  });

  it("checks integers, dates, date-times and the zero-filled transaction date", () => {
    expect(value("chargeback", "reason_code", "83")).toBe(83);
    for (const bad of ["48.5", "-1", "4837a", "1234567890"]) expect(fieldsWithProblems("chargeback", { reason_code: bad })).toEqual(["reason_code"]);
    expect(value("chargeback", "chb_tr_date", "0000-00-00")).toBe("0000-00-00");
    expect(fieldsWithProblems("chargeback", { chb_proc_date: "0000-00-00" })).toEqual(["chb_proc_date"]);
    for (const bad of ["2026-02-30", "2025-02-29", "2026-1-02", "02.01.2026"]) expect(fieldsWithProblems("chargeback", { chb_proc_date: bad })).toEqual(["chb_proc_date"]);
    expect(value("chargeback", "chb_proc_date", "2024-02-29")).toBe("2024-02-29");
    expect(value("chargeback", "tr_date_time", "2026-01-31 23:59:59")).toBe("2026-01-31 23:59:59");
    for (const bad of ["2026-01-31T10:00:00", "2026-01-31 24:00:00", "2026-01-31 10:60:00", "2026-02-30 10:00:00", "2026-01-31 10:00"]) {
      expect(isDateTime(bad)).toBe(false);
    }
  });

  it("checks the coded fields", () => {
    const ok: [string, string][] = [
      ["doc_indicator", "0"],
      ["doc_indicator", "1"],
      ["doc_indicator", "  "],
      ["rev_indicator", "R"],
      ["rev_indicator", " "],
      ["card_type", "VISA"],
      ["merchant_decision", "Represent doc provided"],
      ["chb_ccy", "SEK"],
    ];
    for (const [field, cell] of ok) expect(fieldsWithProblems("chargeback", { [field]: cell }), `${field}=${cell}`).toEqual([]);
    const bad: [string, string][] = [
      ["doc_indicator", "2"],
      ["rev_indicator", "r"],
      ["card_type", "mc"],
      ["merchant_decision", "accept"],
      ["chb_ccy", "eur"],
      ["chb_ccy", "EURO"],
      ["card", "5123451234561234"],
      ["card", "512345******1234"],
      ["card", "12345%1234"],
      ["shop_code", "shop 1"],
      ["shop_code", "a,b"],
    ];
    for (const [field, cell] of bad) expect(fieldsWithProblems("chargeback", { [field]: cell }), `${field}=${cell}`).toEqual([field]);
    expect(fieldsWithProblems("pre_arbitration", { merchant_decision: "rebuttal" })).toEqual([]);
    expect(fieldsWithProblems("pre_arbitration", { merchant_decision: "Accept CB" })).toEqual(["merchant_decision"]);
  });

  it("limits text lengths", () => {
    expect(fieldsWithProblems("chargeback", { payment_order_nr: "x".repeat(30) })).toEqual([]);
    expect(fieldsWithProblems("chargeback", { payment_order_nr: "x".repeat(31) })).toEqual(["payment_order_nr"]);
    expect(fieldsWithProblems("chargeback", { merchant_name: "x".repeat(1001) })).toEqual(["merchant_name"]);
    expect(fieldsWithProblems("chargeback", { comments: "x".repeat(4000) })).toEqual([]);
    expect(fieldsWithProblems("chargeback", { comments: "x".repeat(4001) })).toEqual(["comments"]);
  });
});

describe("checkHeader", () => {
  const columns = importColumns("pre_arbitration");
  it("accepts any order and returns each column's position", () => {
    const header = [...columns].reverse().map((c) => ` ${c} `);
    expect(checkHeader(header, columns)).toEqual({ positions: columns.map((_, i) => columns.length - 1 - i) });
  });
  it("names missing, unknown and repeated columns", () => {
    const result = checkHeader([...columns.filter((c) => c !== "ccy"), "CCY", "card", ""], columns, 3);
    expect(result).toEqual({
      problems: [
        { line: 3, field: "CCY", message: "unknown column" },
        { line: 3, field: "card", message: "the column appears more than once" },
        { line: 3, field: "(empty)", message: "unknown column" },
        { line: 3, field: "ccy", message: "the column is missing" },
      ],
    });
  });
});

describe("parseFileName", () => {
  it("reads kind, bank id and file date", () => {
    expect(parseFileName("CHB_20260131.csv")).toEqual({ kind: "chargeback", bankId: "29", fileDate: "2026-01-31" });
    expect(parseFileName("PREARB_29_20240229.csv")).toEqual({ kind: "pre_arbitration", bankId: "29", fileDate: "2024-02-29" });
    expect(parseFileName("PREARB_Ab7_20260101.csv")).toEqual({ kind: "pre_arbitration", bankId: "Ab7", fileDate: "2026-01-01" });
  });
  it("refuses any other name", () => {
    for (const name of ["CHB_20260230.csv", "CHB_20250229.csv", "CHB_2026013.csv", "chb_20260131.csv", "CHB_20260131.CSV", "CHB_20260131.csv.bak", "PREARB_20260131.csv", "PREARB__20260131.csv", "PREARB_2-9_20260131.csv", "PRE_29_20260131.csv", "CHB_29_20260131.csv"]) {
      expect(parseFileName(name), name).toBeNull();
    }
  });
});

describe("csvRecords", () => {
  const records = async (text: string | Buffer, chunkBytes?: number) => {
    const file = path.join(tempDir(), "f.csv");
    fs.writeFileSync(file, text);
    const out: { cells: string[]; line: number }[] = [];
    for await (const r of csvRecords(file, chunkBytes)) out.push(r);
    return out;
  };

  it("names each record by its first line, with LF or CRLF, a BOM and blank lines", async () => {
    for (const eol of ["\n", "\r\n"]) {
      const text = ["\uFEFFa,b", "1,2", "", `"x${eol}y",3`, `4,"5${eol}${eol}6"`, "", "", "7,8", ""].join(eol);
      expect(await records(text)).toEqual([
        { cells: ["a", "b"], line: 1 },
        { cells: ["1", "2"], line: 2 },
        { cells: [`x${eol}y`, "3"], line: 4 },
        { cells: ["4", `5${eol}${eol}6`], line: 6 },
        { cells: ["7", "8"], line: 11 },
      ]);
    }
  });

  it("counts lines by bytes, whatever the characters", async () => {
    expect((await records(Buffer.from('h\n"é€\n😀",x\nz,y\n'))).map((r) => r.line)).toEqual([1, 2, 4]);
  });

  it("reports malformed CSV at the first line of the broken record", async () => {
    await expect(records('a,b\r\n1,2\r\n"x\r\ny"z,3\r\n')).rejects.toMatchObject({ line: 3, constructor: CsvSyntaxError });
    await expect(records('a,b\n1,2\n\n3,"open\n\n')).rejects.toMatchObject({ line: 4, message: "a quoted cell is never closed" });
  });

  it("refuses a quote inside an unquoted cell and text after a closing quote", async () => {
    await expect(records('a,b\n1,x"y\n')).rejects.toMatchObject({ line: 2, message: /a quote inside a cell that does not begin with one/ });
    await expect(records('a,b\n\n"1" ,2\n')).rejects.toMatchObject({ line: 3, message: /a closing quote must be followed by a comma or the end of the line/ });
    await expect(records('a,b\n"1"\r2,3\n')).rejects.toMatchObject({ line: 2, constructor: CsvSyntaxError });
  });

  it("keeps memory flat on a large file by streaming", async () => {
    const file = path.join(tempDir(), "big.csv");
    const row = `${"x".repeat(200)},${"y".repeat(200)}\n`;
    fs.writeFileSync(file, "a,b\n" + row.repeat(200_000));
    let n = 0;
    let last = 0;
    const before = process.memoryUsage().rss;
    let peak = before;
    try {
      for await (const r of csvRecords(file)) {
        n++;
        last = r.line;
        if (n % 10_000 === 0) peak = Math.max(peak, process.memoryUsage().rss);
      }
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
    expect(n).toBe(200_001);
    expect(last).toBe(200_001);
    // the file is 80 MB; holding it would show
    expect(peak - before).toBeLessThan(60 * 1048576);
  });
  it("reads back any records written as RFC 4180, wherever the reader's chunks end", async () => {
    // Cells with commas, quotes, LF and CRLF inside; chunks of 1 to 40 bytes put a chunk's end at
    // every position (inside a quoted cell, on a doubled quote, between CR and LF, inside a UTF-8
    // character), and a file of megabytes crosses the real chunk size.
    const cell = fc.oneof(
      fc.stringMatching(/^[a-z0-9 ]{0,12}$/),
      fc.constantFrom('"', '""', ",", "\n", "\r\n", 'a "b", c', "x\r\ny\nz", "€😀", "\r", ""),
    );
    const quote = (v: string) => (v === "" || /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);
    const check = async (rows: string[][], eol: string, chunkBytes?: number) => {
      const lines = rows.map((r) => r.map(quote).join(","));
      const expected: { cells: string[]; line: number }[] = [];
      let line = 1;
      rows.forEach((cells, i) => {
        expected.push({ cells, line });
        line += lines[i].split("\n").length;
      });
      expect(await records(lines.join(eol) + eol, chunkBytes)).toEqual(expected);
    };
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 30 }), fc.constantFrom("\n", "\r\n"), fc.integer({ min: 1, max: 40 }), check),
      { numRuns: 300, seed: 20261122 },
    );
    // Sampled, not shrunk: each file is megabytes.
    const long = fc.tuple(fc.array(cell, { maxLength: 5 }), fc.stringMatching(/^[a-z]{300,900}$/)).map(([cells, text]) => [...cells, text]);
    for (const [rows, eol] of fc.sample(fc.tuple(fc.array(long, { minLength: 3000, maxLength: 4000 }), fc.constantFrom("\n", "\r\n")), { numRuns: 2, seed: 20261122 })) {
      await check(rows, eol);
    }
  });
});
