import fs from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { importColumns, type RecordKind } from "@/lib/domain/fields";
import { DEMO_SHOPS, generateDemoFiles, syntheticShops } from "@/lib/demo/generate";
import { parseFileName } from "@/lib/import/file-name";
import { rowValidator } from "@/lib/import/validate";
import { tempDir } from "../helpers/db";

type Row = Record<string, string>;

const OPTS = { seed: 11, chargebacks: 3000, preArbitrations: 400, end: "2026-06-30", days: 90 };

function read(file: string): Row[] {
  return parse(fs.readFileSync(file), { columns: true, bom: true }) as Row[];
}

const bytesOf = (dir: string) => Object.fromEntries(fs.readdirSync(dir).map((n) => [n, fs.readFileSync(path.join(dir, n), "utf8")]));

describe("generateDemoFiles", () => {
  let dir: string;
  let files: string[];
  const rows: Record<RecordKind, Row[]> = { chargeback: [], pre_arbitration: [] };

  beforeAll(() => {
    dir = path.join(tempDir("disputes-demo-unit-"), "a");
    files = generateDemoFiles({ out: dir, ...OPTS }).files;
    for (const file of [...files].sort()) rows[parseFileName(path.basename(file))!.kind].push(...read(file));
  });

  it("is deterministic for a seed and options, and differs for another seed", () => {
    const again = path.join(path.dirname(dir), "b");
    generateDemoFiles({ out: again, ...OPTS });
    expect(bytesOf(again)).toEqual(bytesOf(dir));
    const other = path.join(path.dirname(dir), "c");
    generateDemoFiles({ out: other, ...OPTS, seed: 12 });
    expect(bytesOf(other)).not.toEqual(bytesOf(dir));
  });

  it("writes a chargeback file per business day and weekly pre-arbitration files, named as the import expects", () => {
    const names = files.map((f) => path.basename(f));
    const chb = names.filter((n) => n.startsWith("CHB_"));
    const pa = names.filter((n) => n.startsWith("PREARB_29_"));
    expect(chb.length + pa.length).toBe(names.length);
    const dates = chb.map((n) => parseFileName(n)!.fileDate);
    expect(dates[0] >= "2026-04-02").toBe(true);
    expect(dates.at(-1)).toBe("2026-06-30");
    for (const d of dates) expect([0, 6]).not.toContain(new Date(`${d}T00:00:00Z`).getUTCDay());
    expect(chb).toHaveLength(64); // weekdays from 2026-04-02 to 2026-06-30
    for (const n of pa) expect(new Date(`${parseFileName(n)!.fileDate}T00:00:00Z`).getUTCDay()).toBe(3);
    for (const file of files) {
      const kind = parseFileName(path.basename(file))!.kind;
      expect(fs.readFileSync(file, "utf8").split("\n")[0]).toBe(importColumns(kind).join(","));
    }
  });

  it("writes exactly the requested numbers of records, every one valid for the import", () => {
    expect(rows.chargeback).toHaveLength(OPTS.chargebacks);
    expect(rows.pre_arbitration).toHaveLength(OPTS.preArbitrations);
    for (const kind of ["chargeback", "pre_arbitration"] as const) {
      const validator = rowValidator(kind);
      for (const row of rows[kind]) {
        const result = validator.validate(
          validator.columns.map((c) => row[c]),
          0,
        );
        expect("problems" in result ? result.problems : []).toEqual([]);
      }
    }
  });

  it("follows the schemes' rules: reason code lengths, function codes and names", () => {
    const names: Record<string, string> = { "450": "First Chargeback (Full)", "451": "Arbitration Chargeback (Full)", "453": "First Chargeback (Partial)", "454": "Arbitration Chargeback (Partial)" };
    const functions = { MC: new Set<string>(), VISA: new Set<string>() };
    for (const r of rows.chargeback) {
      expect(r.reason_code).toMatch(r.card_type === "MC" ? /^48\d\d$|^4999$/ : /^\d{2}$/);
      functions[r.card_type as "MC" | "VISA"].add(r.function_code);
      expect(r.function_code_name).toBe(names[r.function_code]);
      expect(r.chb_settl_ccy).toBe("EUR");
      expect(r.card).toMatch(/^\d{6}%\d{4}$/);
    }
    expect([...functions.MC].sort()).toEqual(["450", "451", "453", "454"]);
    expect([...functions.VISA].sort()).toEqual(["450", "453"]);
    const reasons = new Set(rows.chargeback.map((r) => r.reason_code));
    for (const code of ["4837", "4853", "4855", "4808", "4834", "4863", "30", "41", "53", "57", "75", "83", "85"]) expect(reasons).toContain(code);
  });

  it("reverses only earlier chargebacks, by their acquirer reference", () => {
    const seen = new Set<string>();
    let reversals = 0;
    for (const r of rows.chargeback) {
      if (r.rev_indicator === "R") {
        reversals++;
        expect(seen).toContain(r.acq_ref_nr);
      } else seen.add(r.acq_ref_nr);
    }
    expect(reversals).toBeGreaterThan(10);
    expect(new Set(rows.chargeback.filter((r) => r.rev_indicator === "R").map((r) => r.acq_ref_nr)).size).toBe(reversals);
  });

  it("exercises the awkward parts of the format", () => {
    const cb = rows.chargeback;
    const share = (pred: (r: Row) => boolean) => cb.filter(pred).length;
    expect(share((r) => r.chb_tr_date === "0000-00-00")).toBeGreaterThan(0);
    expect(share((r) => /^ +\d+\.\d\d$/.test(r.chb_amount))).toBeGreaterThan(cb.length / 2);
    expect(new Set(cb.map((r) => r.doc_indicator))).toEqual(new Set(["0", "1", " "]));
    expect(new Set(cb.map((r) => r.rev_indicator))).toEqual(new Set(["", " ", "R"]));
    expect(share((r) => r.comments.includes(","))).toBeGreaterThan(0);
    expect(share((r) => r.comments.includes('"'))).toBeGreaterThan(0);
    expect(share((r) => r.comments.includes("\n"))).toBeGreaterThan(0);
    expect(share((r) => r.payment_order_nr === "")).toBeGreaterThan(0);
    expect(share((r) => r.merchant_decision !== "")).toBeGreaterThan(0);
    expect(new Set(cb.map((r) => r.chb_ccy)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(cb.map((r) => r.tr_ccy))).toEqual(new Set(["EUR", "USD", "GBP", "PLN", "SEK"]));
    expect(new Set(rows.pre_arbitration.map((r) => r.merchant_decision))).toEqual(new Set(["", "accept", "rebuttal"]));
  });

  it("places shops under merchants under parent merchants", () => {
    const merchantOf = new Map<string, string>();
    const parentOf = new Map<string, string>();
    for (const r of rows.chargeback) {
      expect(merchantOf.get(r.shop_code) ?? r.merchant_id).toBe(r.merchant_id);
      expect(parentOf.get(r.merchant_id) ?? r.parent_mrch_id).toBe(r.parent_mrch_id);
      merchantOf.set(r.shop_code, r.merchant_id);
      parentOf.set(r.merchant_id, r.parent_mrch_id);
    }
    expect(merchantOf.size).toBe(15);
    expect(parentOf.size).toBe(8);
    expect(new Set(parentOf.values()).size).toBe(3);
    expect([...merchantOf.keys()].some((s) => s !== s.toLowerCase() && s !== s.toUpperCase())).toBe(true);
  });

  it("takes --start over --days, and still writes a pre-arbitration file for a span without a Wednesday", () => {
    const out = path.join(tempDir("disputes-demo-unit-"), "short");
    const { files: short } = generateDemoFiles({ out, seed: 1, chargebacks: 20, preArbitrations: 5, start: "2026-06-04", end: "2026-06-05", days: 300 });
    expect(short.map((f) => path.basename(f))).toEqual(["CHB_20260604.csv", "CHB_20260605.csv", "PREARB_29_20260605.csv"]);
    expect(read(short[2])).toHaveLength(5);
    expect(read(short[0]).length + read(short[1]).length).toBe(20);
  });
});

describe("generateDemoFiles with a synthetic hierarchy (shops, merchants, parents, everyDay)", () => {
  const SYN = { seed: 5, chargebacks: 4000, preArbitrations: 300, end: "2026-10-30", days: 21, shops: 40, merchants: 12, parents: 3, everyDay: true };
  let dir: string;
  let result: ReturnType<typeof generateDemoFiles>;
  let cb: Row[];

  beforeAll(() => {
    dir = path.join(tempDir("disputes-demo-unit-"), "a");
    result = generateDemoFiles({ out: dir, ...SYN });
    cb = result.files.filter((f) => path.basename(f).startsWith("CHB_")).flatMap(read);
  });

  it("makes the requested numbers of shops, merchants and parents, named in sequence", () => {
    expect(result.shops).toHaveLength(40);
    expect(result.shops.map((s) => s.code)).toEqual(Array.from({ length: 40 }, (_, i) => `shop-${String(i + 1).padStart(4, "0")}`));
    expect(new Set(result.shops.map((s) => s.merchantId))).toEqual(new Set(Array.from({ length: 12 }, (_, i) => `MID${String(i + 1).padStart(7, "0")}`)));
    expect(new Set(result.shops.map((s) => s.parentId)).size).toBe(3);
    expect(new Set(result.shops.map((s) => s.ccy)).size).toBeGreaterThanOrEqual(4);

    const merchantOf = new Map<string, string>();
    const parentOf = new Map<string, string>();
    for (const r of cb) {
      expect(merchantOf.get(r.shop_code) ?? r.merchant_id).toBe(r.merchant_id);
      expect(parentOf.get(r.merchant_id) ?? r.parent_mrch_id).toBe(r.parent_mrch_id);
      merchantOf.set(r.shop_code, r.merchant_id);
      parentOf.set(r.merchant_id, r.parent_mrch_id);
    }
    expect(merchantOf.size).toBe(40);
    expect(parentOf.size).toBe(12);
    expect(new Set(parentOf.values()).size).toBe(3);
    expect(new Set(cb.map((r) => r.tr_ccy)).size).toBeGreaterThanOrEqual(4);
  });

  it("writes a chargeback file for every calendar day, weekends too, and valid records", () => {
    const chb = result.files.map((f) => path.basename(f)).filter((n) => n.startsWith("CHB_"));
    expect(chb).toHaveLength(21);
    expect(chb[0]).toBe("CHB_20261010.csv");
    expect(chb.at(-1)).toBe("CHB_20261030.csv");
    expect(chb).toContain("CHB_20261010.csv"); // a Saturday
    expect(cb).toHaveLength(4000);
    const validator = rowValidator("chargeback");
    for (const row of cb) {
      const checked = validator.validate(
        validator.columns.map((c) => row[c]),
        0,
      );
      expect("problems" in checked ? checked.problems : []).toEqual([]);
    }
  });

  it("is deterministic and leaves the default demo shops alone", () => {
    const again = path.join(path.dirname(dir), "b");
    generateDemoFiles({ out: again, ...SYN });
    expect(bytesOf(again)).toEqual(bytesOf(dir));
    expect(syntheticShops(40, 12, 3)).toEqual(result.shops);
    const plain = generateDemoFiles({ out: path.join(path.dirname(dir), "c"), seed: 5, chargebacks: 10, preArbitrations: 1, end: "2026-10-30", days: 7 });
    expect(plain.shops).toBe(DEMO_SHOPS);
    expect(plain.files.filter((f) => path.basename(f).startsWith("CHB_"))).toHaveLength(5); // business days only
  });

  it("defaults merchants and parents from the shop count and refuses impossible shapes", () => {
    const shops = syntheticShops(200);
    expect(new Set(shops.map((s) => s.merchantId)).size).toBe(50);
    expect(new Set(shops.map((s) => s.parentId)).size).toBe(10);
    expect(() => syntheticShops(3, 5)).toThrow(/merchants/);
    expect(() => syntheticShops(10, 2, 3)).toThrow(/parents/);
    expect(() => syntheticShops(0)).toThrow(/shops/);
    expect(() => generateDemoFiles({ out: path.join(path.dirname(dir), "d"), merchants: 3 })).toThrow(/shops/);
  });
});
