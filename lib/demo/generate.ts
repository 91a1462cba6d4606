import fs from "node:fs";
import path from "node:path";
import { stringify } from "csv-stringify/sync";
import { addDays as shiftDate, dayNumber, utcToday } from "@/lib/domain/calendar";
import { importColumns } from "@/lib/domain/fields";

/**
 * Demo data: realistic acquirer report files in the format of docs/api.md, "Import of acquirer
 * files", written to a folder and loaded through the same import as real files. Deterministic for
 * a seed and options; written in batches, so a million records never sit in memory. The files end
 * on `end` (default today), so every worklist status shows on the day they are made: disputes
 * due this week and later, overdue but still answerable, expired recently and long ago.
 */

export interface DemoOptions {
  out: string;
  seed?: number;
  chargebacks?: number;
  preArbitrations?: number;
  /** last file date, YYYY-MM-DD; default today's date in UTC */
  end?: string;
  /** first file date, YYYY-MM-DD; default `days` - 1 calendar days before `end` */
  start?: string;
  /** calendar days the files span, ending at `end`; default 120 (ignored when `start` is given) */
  days?: number;
  /**
   * Number of shops. Default: the 15 demo shops under 8 merchants under 3 parents. When given, a
   * synthetic hierarchy is made instead: shops `shop-0001`, ... spread over `merchants` merchants
   * (`MID0000001`, ...), spread over `parents` parent merchants (`PM-0001`, ...).
   */
  shops?: number;
  /** merchants of the synthetic hierarchy (needs `shops`); default a quarter of the shops */
  merchants?: number;
  /** parent merchants of the synthetic hierarchy (needs `shops`); default a fifth of the merchants */
  parents?: number;
  /** a chargeback file for every calendar day, weekends too; default business days only */
  everyDay?: boolean;
  /**
   * Chargebacks made before, by earlier calls for the same folder: payment ids and order numbers
   * go on from there, so files added later (the demo catching up to today) never repeat them.
   */
  serialStart?: number;
}

export interface DemoResult {
  files: string[];
  shops: DemoShop[];
  /** the last file date */
  end: string;
  /** chargeback rows made, counting serialStart: the next call's serialStart */
  serialEnd: number;
}

export interface DemoShop {
  code: string;
  merchantId: string;
  merchantName: string;
  parentId: string;
  parentName: string;
  ccy: string;
  mcc: string;
  iban: string;
}

function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
    weighted: <T>(items: readonly (readonly [T, number])[]): T => {
      let x = next() * items.reduce((s, [, w]) => s + w, 0);
      for (const [item, w] of items) if ((x -= w) < 0) return item;
      return items[items.length - 1][0];
    },
    digits: (n: number) => Array.from({ length: n }, () => int(0, 9)).join(""),
  };
}
type Rng = ReturnType<typeof rng>;

const PARENTS = [
  { id: "PM-1001", name: "Nordic Retail Group" },
  { id: "PM-2002", name: "Baltic Travel Holding" },
  { id: "PM-3003", name: "Webshop Brands Ltd" },
] as const;

const MERCHANTS = [
  { id: "MID0000001", name: "NORDIC HOME RIGA LV", parent: 0, mcc: "5712", ccy: "EUR", shops: ["demo-shop", "nordic-riga-02", "Nordic-Online"] },
  { id: "MID0000002", name: "NORDIC SPORT TALLINN EE", parent: 0, mcc: "5941", ccy: "EUR", shops: ["nordic-tallinn", "NORDIC-TLN-WEB"] },
  { id: "MID0000003", name: "BT AIR VILNIUS LT", parent: 1, mcc: "4511", ccy: "EUR", shops: ["bt-air", "BT-AIR-APP"] },
  { id: "MID0000004", name: "BT HOTELS WARSAW PL", parent: 1, mcc: "7011", ccy: "PLN", shops: ["bt-hotels-pl", "bt-hotels-Krakow"] },
  { id: "MID0000005", name: "BT CARS STOCKHOLM SE", parent: 1, mcc: "7512", ccy: "SEK", shops: ["bt-cars-se"] },
  { id: "MID0000006", name: "WEBSHOP EU AMSTERDAM NL", parent: 2, mcc: "5999", ccy: "EUR", shops: ["webshop-eu", "webshop-EU-mobile"] },
  { id: "MID0000007", name: "WEBSHOP UK LONDON GB", parent: 2, mcc: "5999", ccy: "GBP", shops: ["WEBSHOP-UK"] },
  { id: "MID0000008", name: "STREAMBOX DIGITAL US", parent: 2, mcc: "5815", ccy: "USD", shops: ["streambox", "streambox-app"] },
] as const;

export const DEMO_SHOPS: DemoShop[] = MERCHANTS.flatMap((m, mi) =>
  m.shops.map((code) => ({
    code,
    merchantId: m.id,
    merchantName: m.name,
    parentId: PARENTS[m.parent].id,
    parentName: PARENTS[m.parent].name,
    ccy: m.ccy,
    mcc: m.mcc,
    iban: `LV${String(10 + mi).padStart(2, "0")}HABA05510000${String(mi + 1).padStart(5, "0")}`,
  })),
);

const SYNTHETIC_PLACES = [
  ["RIGA", "LV", "EUR"],
  ["WARSAW", "PL", "PLN"],
  ["TALLINN", "EE", "EUR"],
  ["LONDON", "GB", "GBP"],
  ["STOCKHOLM", "SE", "SEK"],
  ["VILNIUS", "LT", "EUR"],
  ["NEW YORK", "US", "USD"],
  ["AMSTERDAM", "NL", "EUR"],
] as const;
const SYNTHETIC_MCCS = ["5712", "5941", "4511", "7011", "7512", "5999", "5815", "5411", "5732"] as const;

const pad = (n: number, width: number) => String(n).padStart(width, "0");

const defaultMerchants = (shops: number) => Math.max(1, Math.round(shops / 4));
const defaultParents = (merchants: number) => Math.max(1, Math.round(merchants / 5));

/**
 * A deterministic hierarchy of `shops` shops over `merchants` merchants over `parents` parent
 * merchants, round robin: shop i belongs to merchant i mod merchants, merchant j to parent
 * j mod parents. Currencies, MCCs and countries vary by merchant.
 */
export function syntheticShops(shops: number, merchants = defaultMerchants(shops), parents = defaultParents(merchants)): DemoShop[] {
  const whole = (name: string, value: number, max: number, bound: string) => {
    if (!Number.isSafeInteger(value) || value < 1 || value > max) throw new Error(`${name} must be a whole number from 1 to ${max}${bound}`);
  };
  whole("shops", shops, 1_000_000, "");
  whole("merchants", merchants, shops, " (at most one per shop)");
  whole("parents", parents, merchants, " (at most one per merchant)");
  return Array.from({ length: shops }, (_, i) => {
    const m = i % merchants;
    const p = m % parents;
    const [city, country, ccy] = SYNTHETIC_PLACES[m % SYNTHETIC_PLACES.length];
    return {
      code: `shop-${pad(i + 1, 4)}`,
      merchantId: `MID${pad(m + 1, 7)}`,
      merchantName: `MERCHANT ${pad(m + 1, 4)} ${city} ${country}`,
      parentId: `PM-${pad(p + 1, 4)}`,
      parentName: `Parent Group ${pad(p + 1, 4)}`,
      ccy,
      mcc: SYNTHETIC_MCCS[m % SYNTHETIC_MCCS.length],
      iban: `LV${pad(10 + (m % 90), 2)}HABA0551${pad(m + 1, 9)}`,
    };
  });
}

/** Units of EUR per unit of each currency, as integers of 1/10000 to keep the arithmetic exact. */
const EUR_RATE_E4: Record<string, number> = { EUR: 10000, USD: 9200, GBP: 11700, PLN: 2320, SEK: 870 };

const convertMinor = (minor: number, from: string, to: string) => Math.round((minor * EUR_RATE_E4[from]) / EUR_RATE_E4[to]);

const MC_REASONS = [
  [4837, 22], [4853, 25], [4855, 14], [4808, 8], [4834, 6], [4863, 10], [4841, 6], [4860, 5], [4831, 2], [4842, 1], [4999, 1],
] as const;
const VISA_REASONS = [[83, 24], [30, 16], [41, 10], [53, 14], [57, 8], [75, 8], [85, 12], [62, 3], [86, 3], [81, 2]] as const;

const FUNCTION_NAMES: Record<number, string> = {
  450: "First Chargeback (Full)",
  451: "Arbitration Chargeback (Full)",
  453: "First Chargeback (Partial)",
  454: "Arbitration Chargeback (Partial)",
};

const ISSUER_COMMENTS = [
  "Cardholder does not recognise the transaction",
  "Merchandise not received, cardholder contacted merchant on several occasions",
  'Cardholder states: "cancelled the subscription, still charged"',
  "Goods returned, credit not processed",
  "Duplicate processing, see attached statement",
  "Service not as described.\nCardholder provided photos",
  "Amount differs from receipt, 2 items charged",
];

const MERCHANT_COMMENTS: Record<string, string[]> = {
  "Accept CB": ["Accepted, refund was due", "Accepted: low amount"],
  "Represent doc provided": ["Proof of delivery and signed invoice attached", "Customer logged in from known device, 3DS authenticated"],
  "Represent CR processed": ["Refund already processed on the original card", "Credit issued before the chargeback"],
};

/** Dates here are always real calendar dates (checked where they come in), so a shift is too. */
const addDays = (date: string, days: number) => shiftDate(date, days)!;
const money = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;
// Acquirer files left-pad amounts to a fixed width.
const padded = (minor: number) => money(minor).padStart(12, " ");

interface Recent {
  acqRef: string;
  shop: DemoShop;
  mc: boolean;
  card: string;
  trMinor: number;
  trCcy: string;
  trDateTime: string;
  paymentId: string;
  orderNr: string | null;
  transactionId: string | null;
  chb: Record<string, string | null>;
}

/** Spreads `total` over `buckets` by random weights, exactly: rounding the running sum keeps every bucket near its share. */
function spread(r: Rng, total: number, buckets: number): number[] {
  const weights = Array.from({ length: buckets }, () => 0.6 + r.next() * 0.8);
  const sum = weights.reduce((a, b) => a + b, 0);
  let running = 0;
  return weights.map((w) => {
    const before = Math.round((running / sum) * total);
    running += w;
    return Math.round((running / sum) * total) - before;
  });
}

/** Removes and returns a random element: a chargeback is reversed at most once. */
function takeRandom<T>(r: Rng, items: T[]): T {
  const i = r.int(0, items.length - 1);
  const item = items[i];
  items[i] = items[items.length - 1];
  items.pop();
  return item;
}

class CsvFile {
  private fd: number;
  private rows: string[][] = [];
  constructor(
    readonly file: string,
    private readonly columns: string[],
  ) {
    this.fd = fs.openSync(file, "w");
    fs.writeSync(this.fd, stringify([columns]));
  }
  add(row: Record<string, string | null>) {
    this.rows.push(this.columns.map((c) => row[c] ?? ""));
    if (this.rows.length >= 2000) this.flush();
  }
  private flush() {
    if (this.rows.length) fs.writeSync(this.fd, stringify(this.rows));
    this.rows = [];
  }
  close() {
    this.flush();
    fs.closeSync(this.fd);
  }
}

export function generateDemoFiles(opts: DemoOptions): DemoResult {
  const r = rng(opts.seed ?? 42);
  const chargebacks = opts.chargebacks ?? 5000;
  const preArbitrations = opts.preArbitrations ?? 800;
  for (const [name, value] of [["end", opts.end], ["start", opts.start]] as const) {
    if (value !== undefined && dayNumber(value) === undefined) throw new Error(`${name} must be a calendar date YYYY-MM-DD, got ${JSON.stringify(value)}`);
  }
  const end = opts.end ?? utcToday();
  const start = opts.start ?? addDays(end, -((opts.days ?? 120) - 1));
  if (start > end) throw new Error(`the first file date ${start} is after the last ${end}`);
  if (opts.shops === undefined && (opts.merchants !== undefined || opts.parents !== undefined)) {
    throw new Error("merchants and parents shape a synthetic hierarchy: give shops too");
  }
  const shops = opts.shops === undefined ? DEMO_SHOPS : syntheticShops(opts.shops, opts.merchants, opts.parents);
  fs.mkdirSync(opts.out, { recursive: true });

  // Files arrive on business days (or every day with everyDay); a span of weekend days still gets one file.
  const fileDates: string[] = [];
  for (let date = start; date <= end; date = addDays(date, 1)) {
    const dow = new Date(`${date}T00:00:00Z`).getUTCDay();
    if (opts.everyDay || (dow !== 0 && dow !== 6)) fileDates.push(date);
  }
  if (fileDates.length === 0) fileDates.push(end);
  const shopWeights = shops.map((s, i) => [s, 1 + ((i * 7) % 5)] as const);
  const recent: Recent[] = [];
  const remember = (rec: Recent) => {
    if (recent.length < 5000) recent.push(rec);
    else recent[r.int(0, recent.length - 1)] = rec;
  };

  const files: string[] = [];
  const cbColumns = importColumns("chargeback");
  let serial = opts.serialStart ?? 0;
  const perDay = spread(r, chargebacks, fileDates.length);
  fileDates.forEach((fileDate, day) => {
    const csv = new CsvFile(path.join(opts.out, `CHB_${fileDate.replaceAll("-", "")}.csv`), cbColumns);
    for (let i = 0; i < perDay[day]; i++) {
      serial++;
      const reversal = recent.length > 20 && r.chance(0.03) ? takeRandom(r, recent) : undefined;
      if (reversal) {
        // A reversal repeats the chargeback's transaction and carries the reversal's own data.
        csv.add({ ...reversal.chb, rev_indicator: "R", chb_proc_date: addDays(fileDate, -r.int(0, 2)), merchant_decision: null, merchant_resp_date: null, merchant_comments: null, doc_indicator: "0", comments: "Chargeback reversal" });
        continue;
      }
      csv.add(chargebackRow(r, fileDate, end, serial, shopWeights, remember));
    }
    csv.close();
    files.push(csv.file);
  });

  const paColumns = importColumns("pre_arbitration");
  // Pre-arbitration files come weekly, on Wednesdays (or on the last file date of a short span).
  const wednesdays = fileDates.filter((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 3);
  const paDates = wednesdays.length ? wednesdays : [fileDates[fileDates.length - 1]];
  const paPerFile = spread(r, preArbitrations, paDates.length);
  paDates.forEach((fileDate, idx) => {
    const csv = new CsvFile(path.join(opts.out, `PREARB_29_${fileDate.replaceAll("-", "")}.csv`), paColumns);
    for (let i = 0; i < paPerFile[idx]; i++) {
      const base = recent.length ? r.pick(recent) : undefined;
      const shop = base?.shop ?? r.weighted(shopWeights);
      const decision = r.chance(0.2) ? r.weighted([["accept", 2], ["rebuttal", 3]] as const) : null;
      csv.add({
        shop_code: shop.code,
        card: base?.card ?? `512345%${r.digits(4)}`,
        acq_ref_nr: base?.acqRef ?? r.digits(23),
        merchant_id: shop.merchantId,
        merchant_name: shop.merchantName,
        tr_date_time: base?.trDateTime ?? `${addDays(fileDate, -40)} 12:00:00`,
        amount: padded(base?.trMinor ?? r.int(500, 90000)),
        ccy: base?.trCcy ?? shop.ccy,
        xid: r.chance(0.3) ? r.digits(20) : null,
        transaction_id: base?.transactionId ?? null,
        card_acceptor_id: null,
        case_date: addDays(fileDate, -r.int(0, 3)),
        case_stage: r.weighted([["Pre-arbitration", 6], ["Pre-arbitration response", 2], ["Arbitration", 1]] as const),
        fdl_comments: decision ? r.pick(["Compelling evidence supplied", "Agree with issuer", "Delivery confirmed, see tracking"]) : null,
        merchant_decision: decision,
        payment_id: base?.paymentId ?? `PAY${r.digits(10)}`,
        payment_order_nr: base?.orderNr ?? null,
      });
    }
    csv.close();
    files.push(csv.file);
  });
  return { files, shops, end, serialEnd: serial };
}

function chargebackRow(
  r: Rng,
  fileDate: string,
  end: string,
  serial: number,
  shopWeights: readonly (readonly [DemoShop, number])[],
  remember: (rec: Recent) => void,
): Record<string, string | null> {
  const shop = r.weighted(shopWeights);
  const mc = r.chance(0.55);
  const reason = mc ? r.weighted(MC_REASONS) : r.weighted(VISA_REASONS);
  const fn = mc ? r.weighted([[450, 70], [453, 15], [451, 8], [454, 7]] as const) : r.weighted([[450, 85], [453, 15]] as const);
  const partial = fn === 453 || fn === 454;
  const trCcy = shop.ccy;
  const trMinor = Math.round(Math.exp(r.next() * 6.5 + 6)); // 4 .. 2700 in major units, long-tailed
  const trDays = r.int(5, 90);
  const trDate = addDays(fileDate, -trDays);
  const trDateTime = `${trDate} ${String(r.int(0, 23)).padStart(2, "0")}:${String(r.int(0, 59)).padStart(2, "0")}:${String(r.int(0, 59)).padStart(2, "0")}`;
  const cbMinorTr = partial ? Math.round((trMinor * r.int(20, 90)) / 100) : trMinor;
  // MC charges back in USD or the transaction currency; Visa in the issuer's billing currency.
  const chbCcy = mc ? r.weighted([[trCcy, 3], ["USD", 1]] as const) : r.weighted([["EUR", 5], ["USD", 2], ["GBP", 1], ["SEK", 1]] as const);
  const chbMinor = convertMinor(cbMinorTr, trCcy, chbCcy);
  const settlMinor = convertMinor(chbMinor, chbCcy, "EUR");
  const reversedTx = r.chance(0.02);
  // Only chargebacks old enough to have been answered carry a merchant decision.
  const older = addDays(fileDate, 25) < end;
  const decision = older && r.chance(0.25) ? r.weighted([["Accept CB", 3], ["Represent doc provided", 4], ["Represent CR processed", 2]] as const) : null;
  const card = `${mc ? r.pick(["512345", "540011", "222300"]) : r.pick(["411111", "427533", "453201"])}%${r.digits(4)}`;
  const acqRef = `${mc ? "8" : "7"}${r.digits(22)}`;
  const orderNr = r.chance(0.9) ? `ORD-${String(100000 + serial)}` : null;
  const transactionId = r.chance(0.85) ? (mc ? `MCC${r.digits(6)}${fileDate.slice(5, 7)}${fileDate.slice(8)}` : r.digits(15)) : null;
  const paymentId = `PAY${String(serial).padStart(10, "0")}`;
  const row: Record<string, string | null> = {
    shop_code: shop.code,
    card,
    acq_ref_nr: acqRef,
    merchant_id: shop.merchantId,
    merchant_name: shop.merchantName,
    reason_code: String(reason),
    parent_mrch_id: shop.parentId,
    parent_mrch_name: shop.parentName,
    mcc_code: shop.mcc,
    eci_sli: mc ? r.pick(["210", "211", "212"]) : r.pick(["05", "06", "07"]),
    doc_indicator: r.weighted([["0", 6], ["1", 3], [" ", 1]] as const),
    chb_proc_date: addDays(fileDate, -r.int(0, 2)),
    comments: r.chance(0.6) ? r.pick(ISSUER_COMMENTS) : null,
    function_code: String(fn),
    function_code_name: FUNCTION_NAMES[fn],
    rev_indicator: r.chance(0.3) ? " " : null,
    acq_bin: mc ? "012345" : "432100",
    chb_refer_num: r.digits(10),
    card_type: mc ? "MC" : "VISA",
    chb_tr_date: r.chance(0.05) ? "0000-00-00" : trDate,
    chb_amount: padded(chbMinor),
    chb_ccy: chbCcy,
    chb_settl_amount: padded(settlMinor),
    chb_settl_ccy: "EUR",
    chb_amount_transaction_ccy: padded(convertMinor(settlMinor, "EUR", trCcy)),
    tr_amount: padded(trMinor),
    tr_ccy: trCcy,
    tr_date_time: trDateTime,
    rev_amount: reversedTx ? padded(trMinor) : null,
    rev_ccy: reversedTx ? trCcy : null,
    rev_date_time: reversedTx ? `${addDays(trDate, 1)} 09:15:00` : null,
    payment_id: paymentId,
    xid: r.chance(0.3) ? r.digits(20) : null,
    merchant_decision: decision,
    merchant_resp_date: decision ? addDays(fileDate, r.int(2, 20)) : null,
    merchant_comments: decision ? r.pick(MERCHANT_COMMENTS[decision]) : null,
    merchant_iban_code: shop.iban,
    transaction_id: transactionId,
    card_acceptor_id: null,
    payment_order_nr: orderNr,
  };
  remember({ acqRef, shop, mc, card, trMinor, trCcy, trDateTime, paymentId, orderNr, transactionId, chb: row });
  return row;
}
