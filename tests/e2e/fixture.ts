import fs from "node:fs";
import path from "node:path";
import { importColumns } from "../../lib/domain/fields";

/**
 * A small, deterministic set of acquirer report files in the format of docs/api.md, "Import of acquirer files", written by the
 * browser tests themselves so they depend on nothing but the import command. It holds what the
 * dashboard must cope with: three shops (one outside the test user's access list), both schemes,
 * known and unknown reason codes, every function code, reversals, documents, zero-filled dates,
 * names with commas and quotes, decisions made and not, and enough rows for a full page of 1000.
 */

export const SHOPS = { a: "SHOP_A", b: "SHOP_B", outside: "SHOP_C" } as const;
export const CHARGEBACK_FILE_DATES = Array.from({ length: 14 }, (_, i) => `2026-01-${String(2 + i * 2).padStart(2, "0")}`);
export const PRE_ARBITRATION_FILE_DATES = ["2026-02-10", "2026-02-17"];
export const CHARGEBACKS_PER_FILE = 100;
export const PRE_ARBITRATIONS_PER_FILE = 40;

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function writeCsv(file: string, columns: string[], rows: Record<string, string>[]): void {
  const lines = [columns.join(","), ...rows.map((row) => columns.map((c) => csvCell(row[c] ?? "")).join(","))];
  fs.writeFileSync(file, lines.join("\r\n") + "\r\n");
}

const MC_CODES = [4837, 4853, 4855, 4808, 4863, 4999];
const VISA_CODES = [30, 83, 13, 57, 12, 99];
const CURRENCIES = ["EUR", "USD", "GBP"];
const MERCHANTS = [
  { id: "MID100", name: "Demo Shop, Ltd.", parent: "PMID1", parentName: "Demo Group" },
  { id: "MID200", name: 'Acme "Books"', parent: "PMID1", parentName: "Demo Group" },
  { id: "MID300", name: "Café Zürich", parent: "", parentName: "" },
];

function shopFor(r: () => number): string {
  const x = r();
  return x < 0.45 ? SHOPS.a : x < 0.85 ? SHOPS.b : SHOPS.outside;
}

function amount(r: () => number): string {
  return `${Math.floor(r() * 2000)}.${pad(Math.floor(r() * 100), 2)}`;
}

/**
 * One dispute with several records, for the drawer's timeline: the 20th chargeback (a first
 * chargeback) is followed by an arbitration chargeback for the same transaction two files later,
 * and by the first pre-arbitration case, which is then the dispute's current item.
 */
export const TIMELINE = { shop: SHOPS.a, arn: "72026010200000000000020", card: "545454%0020", firstSeq: 20, arbitrationSeq: 220 } as const;

function timelineDispute(row: Record<string, string>): void {
  const seq = Number(row.chb_refer_num.slice(3));
  if (seq !== TIMELINE.firstSeq && seq !== TIMELINE.arbitrationSeq) return;
  const arbitration = seq === TIMELINE.arbitrationSeq;
  Object.assign(row, {
    shop_code: TIMELINE.shop,
    acq_ref_nr: TIMELINE.arn,
    card: TIMELINE.card,
    card_type: "MC",
    reason_code: "4853",
    rev_indicator: "",
    rev_amount: "",
    rev_ccy: "",
    rev_date_time: "",
    function_code: arbitration ? "451" : "450",
    function_code_name: arbitration ? "Arbitration Chargeback (Full)" : "First Chargeback (Full)",
  });
}

export function writeFixtureFiles(dir: string, seed = 42): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const r = rng(seed);
  const files: string[] = [];
  let seq = 0;
  for (const fileDate of CHARGEBACK_FILE_DATES) {
    const rows: Record<string, string>[] = [];
    for (let i = 0; i < CHARGEBACKS_PER_FILE; i++) {
      seq++;
      const mc = r() < 0.55;
      const merchant = MERCHANTS[Math.floor(r() * MERCHANTS.length)];
      const reversal = seq % 15 === 0;
      const functionCode = mc ? [450, 450, 453, 451, 454][Math.floor(r() * 5)] : [450, 450, 453][Math.floor(r() * 3)];
      const ccy = CURRENCIES[Math.floor(r() * CURRENCIES.length)];
      const chb = amount(r);
      const decided = seq % 7 === 0;
      const procDate = addDays(fileDate, -1 - Math.floor(r() * 3));
      rows.push({
        shop_code: shopFor(r),
        card: `${mc ? "545454" : "411111"}%${pad(Math.floor(r() * 10000), 4)}`,
        acq_ref_nr: `7${fileDate.replace(/-/g, "")}${pad(seq, 14)}`,
        merchant_id: merchant.id,
        merchant_name: merchant.name,
        reason_code: String(mc ? MC_CODES[seq % MC_CODES.length] : VISA_CODES[seq % VISA_CODES.length]),
        parent_mrch_id: merchant.parent,
        parent_mrch_name: merchant.parentName,
        mcc_code: "5999",
        eci_sli: mc ? "212" : "05",
        doc_indicator: seq % 4 === 0 ? "1" : seq % 4 === 1 ? " " : "0",
        chb_proc_date: procDate,
        comments: seq % 5 === 0 ? "Cardholder says the goods never arrived, see letter" : "",
        function_code: String(functionCode),
        function_code_name: { 450: "First Chargeback (Full)", 451: "Arbitration Chargeback (Full)", 453: "First Chargeback (Partial)", 454: "Arbitration Chargeback (Partial)" }[functionCode]!,
        rev_indicator: reversal ? "R" : seq % 2 ? " " : "",
        acq_bin: mc ? "012345" : "412345",
        chb_refer_num: `CRN${pad(seq, 8)}`,
        card_type: mc ? "MC" : "VISA",
        chb_tr_date: seq % 11 === 0 ? "0000-00-00" : addDays(fileDate, -20),
        chb_amount: `  ${chb}`,
        chb_ccy: ccy,
        chb_settl_amount: chb,
        chb_settl_ccy: "EUR",
        chb_amount_transaction_ccy: chb,
        tr_amount: chb,
        tr_ccy: ccy,
        tr_date_time: `${addDays(fileDate, -20)} 1${seq % 10}:2${seq % 10}:0${seq % 10}`,
        rev_amount: reversal ? chb : "",
        rev_ccy: reversal ? ccy : "",
        rev_date_time: reversal ? `${fileDate} 09:00:00` : "",
        payment_id: `PAY${pad(seq, 7)}`,
        xid: seq % 3 === 0 ? `XID${pad(seq, 10)}` : "",
        merchant_decision: decided ? "Accept CB" : "",
        merchant_resp_date: decided ? fileDate : "",
        merchant_comments: decided ? "Accepted after review" : "",
        merchant_iban_code: "DE89370400440532013000",
        transaction_id: `TXN${pad(seq, 9)}`,
        card_acceptor_id: seq % 9 === 0 ? `CA${pad(seq, 6)}` : "",
        payment_order_nr: `ORD-${pad(seq, 6)}`,
      });
    }
    for (const row of rows) timelineDispute(row);
    const file = path.join(dir, `CHB_${fileDate.replace(/-/g, "")}.csv`);
    writeCsv(file, importColumns("chargeback"), rows);
    files.push(file);
  }
  let caseSeq = 0;
  for (const fileDate of PRE_ARBITRATION_FILE_DATES) {
    const rows: Record<string, string>[] = [];
    for (let i = 0; i < PRE_ARBITRATIONS_PER_FILE; i++) {
      caseSeq++;
      const mc = r() < 0.5;
      const merchant = MERCHANTS[Math.floor(r() * MERCHANTS.length)];
      rows.push({
        shop_code: shopFor(r),
        card: `${mc ? "545454" : "411111"}%${pad(Math.floor(r() * 10000), 4)}`,
        acq_ref_nr: `8${fileDate.replace(/-/g, "")}${pad(caseSeq, 14)}`,
        merchant_id: merchant.id,
        merchant_name: merchant.name,
        tr_date_time: `${addDays(fileDate, -60)} 12:00:00`,
        amount: amount(r),
        ccy: CURRENCIES[caseSeq % CURRENCIES.length],
        xid: "",
        transaction_id: `PTXN${pad(caseSeq, 8)}`,
        card_acceptor_id: "",
        case_date: addDays(fileDate, -2),
        case_stage: caseSeq % 2 ? "Pre-arbitration" : "Pre-arbitration response",
        fdl_comments: caseSeq % 4 === 0 ? "Issuer provided new evidence" : "",
        merchant_decision: caseSeq % 5 === 0 ? "rebuttal" : caseSeq % 7 === 0 ? "accept" : "",
        payment_id: `PPAY${pad(caseSeq, 6)}`,
        payment_order_nr: `PORD-${pad(caseSeq, 5)}`,
      });
    }
    if (fileDate === PRE_ARBITRATION_FILE_DATES[0]) Object.assign(rows[0], { shop_code: TIMELINE.shop, acq_ref_nr: TIMELINE.arn, card: TIMELINE.card, case_date: "2026-02-08", merchant_decision: "" });
    const file = path.join(dir, `PREARB_29_${fileDate.replace(/-/g, "")}.csv`);
    writeCsv(file, importColumns("pre_arbitration"), rows);
    files.push(file);
  }
  return files;
}

/**
 * A head office: 200 shops (HQ-001 ...) of 40 merchants under 8 parent merchants, one chargeback
 * each in one file of their own, for the shop picker at a real analyst's scale. No other user
 * sees these shops, so the other tests' figures are untouched.
 */
const HQ_TRADES = ["Outdoor", "Books", "Travel", "Electronics", "Fashion", "Garden", "Pharmacy", "Toys"];
const HQ_CITIES = ["Graz", "Lyon", "Porto", "Turku", "Brno"];
export const HEAD_OFFICE = {
  fileDate: "2026-01-31",
  shops: Array.from({ length: 200 }, (_, i) => `HQ-${pad(i + 1, 3)}`),
  /** shop i belongs to merchant floor(i / 5), merchant m to parent floor(m / 5) */
  merchant: (m: number) => ({ id: `HQM-${pad(m + 1, 2)}`, name: `${HQ_TRADES[m % 8]} ${HQ_CITIES[Math.floor(m / 8)]} ${pad(m + 1, 2)}` }),
  parent: (p: number) => ({ id: `HQP-${p + 1}`, name: `Holding ${["North", "South", "East", "West", "Alpine", "Coastal", "Central", "Island"][p]}` }),
} as const;

export function writeHeadOfficeFile(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const rows = HEAD_OFFICE.shops.map((shop, i) => {
    const m = Math.floor(i / 5);
    const merchant = HEAD_OFFICE.merchant(m);
    const parent = HEAD_OFFICE.parent(Math.floor(m / 5));
    const seq = 900_000 + i;
    return {
      shop_code: shop,
      card: "545454%0001",
      acq_ref_nr: `7${HEAD_OFFICE.fileDate.replace(/-/g, "")}${pad(seq, 14)}`,
      merchant_id: merchant.id,
      merchant_name: merchant.name,
      reason_code: "4853",
      parent_mrch_id: parent.id,
      parent_mrch_name: parent.name,
      chb_proc_date: addDays(HEAD_OFFICE.fileDate, -1),
      function_code: "450",
      function_code_name: "First Chargeback (Full)",
      card_type: "MC",
      chb_amount: `${10 + i}.00`,
      chb_ccy: "EUR",
      payment_id: `HQPAY${pad(seq, 7)}`,
      payment_order_nr: `HQ-ORD-${pad(i + 1, 4)}`,
    };
  });
  const file = path.join(dir, `CHB_${HEAD_OFFICE.fileDate.replace(/-/g, "")}.csv`);
  writeCsv(file, importColumns("chargeback"), rows);
  return file;
}

