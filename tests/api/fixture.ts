import fs from "node:fs";
import path from "node:path";
import { stringify } from "csv-stringify/sync";

/**
 * A deterministic fixture for the API tests, written as acquirer files (docs/api.md, "Import of acquirer files") and loaded
 * through the real import command, plus an independent model of docs/api.md, "Selection and order" that the
 * server's answers are compared with. The data has ties in every sort key, NULL order numbers
 * and codes that differ only in case or in non-ASCII bytes, so bytewise order matters.
 */

export type Kind = "chargeback" | "pre_arbitration";

export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    chance: (p: number) => next() < p,
    subset: <T>(items: readonly T[], max: number): T[] => {
      const n = 1 + Math.floor(next() * Math.min(max, items.length));
      const copy = [...items];
      const out: T[] = [];
      while (out.length < n && copy.length) out.push(copy.splice(Math.floor(next() * copy.length), 1)[0]);
      return out;
    },
  };
}

export const SHOPS = ["shop-a", "Shop-A", "SHOP-B", "shop_b", "Zeta", "alpha", "Älpha", "zz"] as const;
export const MERCHANTS = ["M001", "m001", "M002", "M010", "Mé"] as const;
export const PARENTS = ["P1", "p1", "P2"] as const;
export const ACQ_REFS = Array.from({ length: 25 }, (_, i) => (i % 3 === 0 ? `arn-${i}` : `ARN-${i}`)).concat(["74612345678901234567890", "Arn-x"]);
export const ORDERS = ["ord-1", "ORD-1", "Ord-10", "ord-2", "Ö-1", "o", "O", "ord-1 "].map((o) => o.trim());
export const TRANSACTION_IDS = ["T1", "t1", "T2", "T10", "Tx"];
export const FILE_DATES: Record<Kind, string[]> = {
  chargeback: ["2026-01-05", "2026-01-06", "2026-02-01", "2026-02-28", "2026-03-01"],
  pre_arbitration: ["2026-01-06", "2026-02-15", "2026-03-01"],
};

/** Credentials the tests create with the admin command; scope is their access list. */
export const CREDENTIALS = {
  wide: { shop: "shop-a", password: "wide-password-1", access: [...SHOPS] },
  narrow: { shop: "Zeta", password: "narrow-password", access: ["Zeta", "shop_b"] },
  self: { shop: "zz", password: "self-password-9", access: ["zz"] },
} as const;

/** A record as the API must return it, with amounts kept as their exact text ("12.50"). */
export type ModelRecord = Record<string, string | number | null> & { __id: number; __shop: string };

const pad = (amount: string, r: ReturnType<typeof prng>) => (r.chance(0.3) ? `${" ".repeat(r.int(1, 6))}${amount}` : amount);

function amount(r: ReturnType<typeof prng>): { cell: string; text: string } {
  const whole = r.pick([0, 1, 9, 12, 120, 999, 1000000, r.int(0, 50000)]);
  const cents = r.int(0, 99);
  // Sometimes one decimal or none, as acquirers send them: the API always writes two.
  const style = r.int(0, 2);
  const cell = style === 0 ? `${whole}` : style === 1 && cents % 10 === 0 ? `${whole}.${cents / 10}` : `${whole}.${String(cents).padStart(2, "0")}`;
  const minor = whole * 100 + (style === 0 ? 0 : style === 1 && cents % 10 === 0 ? cents : cents);
  const text = `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
  return { cell: pad(cell, r), text };
}

function maybe<T>(r: ReturnType<typeof prng>, p: number, value: () => T): T | null {
  return r.chance(p) ? value() : null;
}

interface Built {
  header: string[];
  rows: string[][];
  records: ModelRecord[];
}

export function chargebackFile(r: ReturnType<typeof prng>, fileDate: string, count: number, firstId: number): Built {
  const header = [
    "shop_code", "card", "acq_ref_nr", "merchant_id", "merchant_name", "reason_code", "parent_mrch_id", "parent_mrch_name",
    "mcc_code", "eci_sli", "doc_indicator", "chb_proc_date", "comments", "function_code", "function_code_name", "rev_indicator",
    "acq_bin", "chb_refer_num", "card_type", "chb_tr_date", "chb_amount", "chb_ccy", "chb_settl_amount", "chb_settl_ccy",
    "chb_amount_transaction_ccy", "tr_amount", "tr_ccy", "tr_date_time", "rev_amount", "rev_ccy", "rev_date_time", "payment_id",
    "xid", "merchant_decision", "merchant_resp_date", "merchant_comments", "merchant_iban_code", "transaction_id",
    "card_acceptor_id", "payment_order_nr",
  ];
  const rows: string[][] = [];
  const records: ModelRecord[] = [];
  for (let i = 0; i < count; i++) {
    const id = firstId + i;
    const mc = r.chance(0.6);
    const shop = r.pick(SHOPS);
    const fn = mc ? r.pick([450, 451, 453, 454]) : r.pick([450, 453]);
    const doc = r.pick(["0", "1", " ", ""]);
    const rev = r.pick(["", " ", "R"]);
    const chb = amount(r);
    const settl = maybe(r, 0.8, () => amount(r));
    const tr = maybe(r, 0.9, () => amount(r));
    const revAmount = rev === "R" ? amount(r) : null;
    const order = maybe(r, 0.8, () => r.pick(ORDERS));
    const trDate = r.chance(0.15) ? "0000-00-00" : `2025-12-${String(r.int(1, 28)).padStart(2, "0")}`;
    const decision = maybe(r, 0.2, () => r.pick(["Accept CB", "Represent doc provided", "Represent CR processed"]));
    const rec: ModelRecord = {
      __id: id,
      __shop: shop,
      bank_id: "29",
      file_date: fileDate,
      card: `${mc ? "512345" : "411111"}%${String(r.int(0, 9999)).padStart(4, "0")}`,
      acq_ref_nr: r.pick(ACQ_REFS),
      merchant_id: r.pick(MERCHANTS),
      merchant_name: maybe(r, 0.9, () => r.pick(["Shop, Inc.", 'The "Best" Store', "Café Ünïcode"])),
      reason_code: mc ? r.pick([4837, 4853, 4855, 4808]) : r.pick([30, 41, 53, 83]),
      parent_mrch_id: maybe(r, 0.7, () => r.pick(PARENTS)),
      parent_mrch_name: maybe(r, 0.5, () => "Parent Group"),
      mcc_code: maybe(r, 0.9, () => r.pick(["5411", "5999", "4121"])),
      eci_sli: maybe(r, 0.5, () => r.pick(["05", "07", "212"])),
      doc_indicator: doc === "" ? null : doc === " " ? " " : Number(doc),
      chb_proc_date: `2026-01-${String(r.int(1, 28)).padStart(2, "0")}`,
      comments: maybe(r, 0.4, () => r.pick(["Cardholder says: \"not me\"", "line one\nline two", "refund, please"])),
      function_code: fn,
      function_code_name: { 450: "First Chargeback (Full)", 451: "Arbitration Chargeback (Full)", 453: "First Chargeback (Partial)", 454: "Arbitration Chargeback (Partial)" }[fn]!,
      rev_indicator: rev === "" ? null : rev,
      acq_bin: maybe(r, 0.9, () => (mc ? "012345" : "432100")),
      chb_refer_num: maybe(r, 0.9, () => `CRN${r.int(100000, 999999)}`),
      card_type: mc ? "MC" : "VISA",
      chb_tr_date: maybe(r, 0.9, () => trDate),
      chb_amount: chb.text,
      chb_ccy: r.pick(["EUR", "USD", "GBP"]),
      chb_settl_amount: settl?.text ?? null,
      chb_settl_ccy: settl ? "EUR" : null,
      chb_amount_transaction_ccy: maybe(r, 0.7, () => amount(r).text),
      tr_amount: tr?.text ?? null,
      tr_ccy: tr ? r.pick(["EUR", "PLN"]) : null,
      tr_date_time: maybe(r, 0.9, () => `2025-12-${String(r.int(1, 28)).padStart(2, "0")} ${String(r.int(0, 23)).padStart(2, "0")}:05:09`),
      rev_amount: revAmount?.text ?? null,
      rev_ccy: revAmount ? "EUR" : null,
      rev_date_time: revAmount ? "2026-01-02 03:04:05" : null,
      payment_id: `PAY-${id}`,
      xid: maybe(r, 0.3, () => `xid-${id}`),
      merchant_decision: decision,
      merchant_resp_date: decision ? "2026-02-02" : null,
      merchant_comments: decision ? "answered" : null,
      merchant_iban_code: maybe(r, 0.8, () => "LV80BANK0000435195001"),
      transaction_id: maybe(r, 0.8, () => r.pick(TRANSACTION_IDS)),
      card_acceptor_id: maybe(r, 0.2, () => `CA${r.int(1, 9)}`),
      payment_order_nr: order,
    };
    const cells: Record<string, string> = {};
    for (const col of header) {
      const v = col === "shop_code" ? shop : rec[col];
      cells[col] = v === null || v === undefined ? "" : String(v);
    }
    // The file carries the amounts as the acquirer wrote them (padding, fewer decimals).
    cells.chb_amount = chb.cell;
    if (settl) cells.chb_settl_amount = settl.cell;
    if (tr) cells.tr_amount = tr.cell;
    if (revAmount) cells.rev_amount = revAmount.cell;
    if (doc === " ") cells.doc_indicator = "   ";
    rows.push(header.map((c) => cells[c]));
    records.push(rec);
  }
  return { header, rows, records };
}

export function preArbitrationFile(r: ReturnType<typeof prng>, bankId: string, fileDate: string, count: number, firstId: number): Built {
  const header = [
    "payment_order_nr", "shop_code", "card", "acq_ref_nr", "merchant_id", "merchant_name", "tr_date_time", "amount", "ccy", "xid",
    "transaction_id", "card_acceptor_id", "case_date", "case_stage", "fdl_comments", "merchant_decision", "payment_id",
  ];
  const rows: string[][] = [];
  const records: ModelRecord[] = [];
  for (let i = 0; i < count; i++) {
    const id = firstId + i;
    const shop = r.pick(SHOPS);
    const amt = amount(r);
    const rec: ModelRecord = {
      __id: id,
      __shop: shop,
      bank_id: bankId,
      file_date: fileDate,
      card: `${r.pick(["512345", "411111"])}%${String(r.int(0, 9999)).padStart(4, "0")}`,
      acq_ref_nr: r.pick(ACQ_REFS),
      merchant_id: r.pick(MERCHANTS),
      merchant_name: maybe(r, 0.9, () => "Merchant, \"quoted\""),
      tr_date_time: maybe(r, 0.9, () => "2025-11-30 23:59:59"),
      amount: amt.text,
      ccy: r.pick(["EUR", "SEK"]),
      xid: maybe(r, 0.3, () => `x${id}`),
      transaction_id: maybe(r, 0.5, () => r.pick(TRANSACTION_IDS)),
      card_acceptor_id: null,
      case_date: `2026-02-${String(r.int(1, 28)).padStart(2, "0")}`,
      case_stage: r.pick(["Pre-arbitration", "Pre-arbitration response"]),
      fdl_comments: maybe(r, 0.3, () => "see attached\nsecond line"),
      merchant_decision: maybe(r, 0.3, () => r.pick(["accept", "rebuttal"])),
      payment_id: r.chance(0.2) ? "PAY-shared" : `PA-${id}`,
      payment_order_nr: maybe(r, 0.75, () => r.pick(ORDERS)),
    };
    const cells: Record<string, string> = {};
    for (const col of header) {
      const v = col === "shop_code" ? shop : rec[col];
      cells[col] = v === null || v === undefined ? "" : String(v);
    }
    cells.amount = amt.cell;
    rows.push(header.map((c) => cells[c]));
    records.push(rec);
  }
  return { header, rows, records };
}

export interface Fixture {
  dir: string;
  files: string[];
  records: Record<Kind, ModelRecord[]>;
}

/** Writes the fixture files into `dir`, in the order they must be imported. */
export function writeFixture(dir: string, seed = 7): Fixture {
  fs.mkdirSync(dir, { recursive: true });
  const r = prng(seed);
  const files: string[] = [];
  const records: Record<Kind, ModelRecord[]> = { chargeback: [], pre_arbitration: [] };
  for (const [i, date] of FILE_DATES.chargeback.entries()) {
    const built = chargebackFile(r, date, [70, 55, 80, 40, 60][i], records.chargeback.length + 1);
    const file = path.join(dir, `CHB_${date.replaceAll("-", "")}.csv`);
    fs.writeFileSync(file, (i === 0 ? "\uFEFF" : "") + stringify([built.header, ...built.rows]));
    files.push(file);
    records.chargeback.push(...built.records);
  }
  for (const [i, date] of FILE_DATES.pre_arbitration.entries()) {
    const built = preArbitrationFile(r, i === 1 ? "31" : "29", date, [45, 35, 50][i], records.pre_arbitration.length + 1);
    const file = path.join(dir, `PREARB_${i === 1 ? "31" : "29"}_${date.replaceAll("-", "")}.csv`);
    fs.writeFileSync(file, stringify([built.header, ...built.rows]));
    files.push(file);
    records.pre_arbitration.push(...built.records);
  }
  return { dir, files, records };
}

// ---- The model of the selection and order rules --------------------------------------------

export interface ModelRequest {
  file_date_from?: string | null;
  file_date_to?: string | null;
  shop_codes?: string[] | null;
  merchant_id?: string | null;
  parent_merchant_id?: string | null;
  acq_ref_nrs?: string[] | null;
  transaction_ids?: string[] | null;
  payment_ids?: string[] | null;
  payment_order_nrs?: string[] | null;
  page?: number | null;
  per_page?: number | null;
  sortKey?: string | null;
  sortOrder?: "asc" | "desc" | null;
}

const SORT_FIELD: Record<string, string> = {
  SHOP_CODE: "__shop",
  MERCHANT_ID: "merchant_id",
  ACQ_REF_NR: "acq_ref_nr",
  PAYMENT_ORDER_NR: "payment_order_nr",
  FILE_DATE: "file_date",
};

/** Bytewise comparison of the UTF-8 encodings (C collation); NULL is the smallest value. */
export function compareBytes(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return Buffer.compare(Buffer.from(String(a), "utf8"), Buffer.from(String(b), "utf8"));
}

export function modelSearch(records: ModelRecord[], req: ModelRequest, access: readonly string[]) {
  const anyOf = (list: string[] | null | undefined, value: string | number | null) => !list?.length || list.includes(value as string);
  const shops = req.shop_codes?.length ? req.shop_codes : access;
  const selected = records.filter(
    (rec) =>
      shops.includes(rec.__shop) &&
      (!req.file_date_from || (rec.file_date as string) >= req.file_date_from) &&
      (!req.file_date_to || (rec.file_date as string) <= req.file_date_to) &&
      (!req.merchant_id || rec.merchant_id === req.merchant_id) &&
      (!req.parent_merchant_id || rec.parent_mrch_id === req.parent_merchant_id) &&
      anyOf(req.acq_ref_nrs, rec.acq_ref_nr) &&
      anyOf(req.transaction_ids, rec.transaction_id) &&
      anyOf(req.payment_ids, rec.payment_id) &&
      anyOf(req.payment_order_nrs, rec.payment_order_nr),
  );
  const key = req.sortKey ?? "ID";
  const dir = req.sortOrder === "desc" ? -1 : 1;
  selected.sort((a, b) => {
    const byKey = key === "ID" ? 0 : compareBytes(a[SORT_FIELD[key]], b[SORT_FIELD[key]]);
    return dir * (byKey || a.__id - b.__id);
  });
  const perPage = req.per_page ?? 10;
  const page = req.page ?? 0;
  return {
    content: selected.slice(page * perPage, (page + 1) * perPage),
    totalElements: selected.length,
    totalPages: Math.ceil(selected.length / perPage),
  };
}

/** The record as the API's JSON reads back after JSON.parse (amounts become numbers there). */
export function publicRecord(rec: ModelRecord, kind: Kind): Record<string, unknown> {
  const amountFields = kind === "chargeback" ? ["chb_amount", "chb_settl_amount", "chb_amount_transaction_ccy", "tr_amount", "rev_amount"] : ["amount"];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rec)) {
    if (k.startsWith("__")) continue;
    out[k] = amountFields.includes(k) && v !== null ? Number(v) : v;
  }
  return out;
}
