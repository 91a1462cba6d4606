import fs from "node:fs";
import path from "node:path";
import { stringify } from "csv-stringify/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";
import { startServer, type TestServer } from "../helpers/server";
import { compareBytes, CREDENTIALS, type Kind, type ModelRecord, prng, publicRecord, SHOPS } from "./fixture";
import { type ApiEnv, setupApiEnv, signedHeaders } from "./harness";

/**
 * POST /api/worklist (docs/api.md, "Worklist") on each backend: the running server against an independent
 * model of the contract written here, over the API fixture plus disputes made for the worklist
 * (several messages, reversals, cases after chargebacks, BINs of every scheme rule, decisions,
 * unknown function codes), under the default windows and under other configured windows, before
 * and right after an import that changes current items.
 */

type Credential = keyof typeof CREDENTIALS;
type Scheme = "MC" | "VISA";
type Stage = "FIRST_CHARGEBACK" | "ARBITRATION_CHARGEBACK" | "PRE_ARBITRATION";

// ---- The model of docs/api.md, "Worklist" ---------------------------------------------------------------

/**
 * The days of docs/api.md, "Worklist" under an environment: to the answer-by date, min(acquirer window, scheme
 * limit); to the expiry date, the scheme limit (for an unknown scheme, the limit of the scheme
 * whose window is shorter, the smaller limit on a tie).
 */
function windowsOf(env: Record<string, string>) {
  const defaults: Record<Scheme, Record<Stage, number>> = {
    MC: { FIRST_CHARGEBACK: 45, ARBITRATION_CHARGEBACK: 45, PRE_ARBITRATION: 30 },
    VISA: { FIRST_CHARGEBACK: 30, ARBITRATION_CHARGEBACK: 30, PRE_ARBITRATION: 30 },
  };
  const limitOf = (scheme: Scheme, stage: Stage) => Number(env[`SCHEME_LIMIT_DAYS_${scheme}_${stage}`] ?? defaults[scheme][stage]);
  const days = (scheme: Scheme, stage: Stage) => Math.min(Number(env[`DEADLINE_DAYS_${scheme}_${stage}`] ?? 14), limitOf(scheme, stage));
  return {
    answer: (scheme: Scheme | null, stage: Stage) => (scheme ? days(scheme, stage) : Math.min(days("MC", stage), days("VISA", stage))),
    expiry: (scheme: Scheme | null, stage: Stage) => {
      if (scheme) return limitOf(scheme, stage);
      const [mc, visa] = [days("MC", stage), days("VISA", stage)];
      return mc < visa ? limitOf("MC", stage) : visa < mc ? limitOf("VISA", stage) : Math.min(limitOf("MC", stage), limitOf("VISA", stage));
    },
  };
}
type Windows = ReturnType<typeof windowsOf>;
type Status = "due" | "overdue" | "expired";
const ALL_STATUSES: Status[] = ["due", "overdue", "expired"];
/** Every dispute that needs an answer, whatever the date: for checks that are not about statuses. */
const EVERY_STATUS = { statuses: ALL_STATUSES };

/** The server's own date in UTC: what a request without as_of is counted on. */
const serverToday = () => new Date().toISOString().slice(0, 10);

/** The status (docs/api.md, "Worklist") of a dispute on `today`. */
function statusOf(today: string, answerBy: string, expiresOn: string): Status {
  return answerBy >= today ? "due" : today <= expiresOn ? "overdue" : "expired";
}

function binScheme(card: string): Scheme | null {
  const bin = Number(card.slice(0, 6));
  if (card.startsWith("4")) return "VISA";
  if ((bin >= 510000 && bin <= 559999) || (bin >= 222100 && bin <= 272099)) return "MC";
  return null;
}

function plusDays(date: string, n: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

interface WorklistBody {
  shop_codes?: string[] | null;
  kinds?: string[] | null;
  statuses?: string[] | null;
  as_of?: string | null;
  expiry_from?: string | null;
  expiry_to?: string | null;
  answer_by_from?: string | null;
  answer_by_to?: string | null;
  page?: number | null;
  per_page?: number | null;
}

interface Entry {
  kind: Kind;
  answer_by: string;
  expires_on: string;
  rec: ModelRecord;
}

type Records = Record<Kind, ModelRecord[]>;

/** Every dispute that needs an answer, with its answer-by and expiry dates under `windows`, in the contract's order. */
function modelEntries(records: Records, windows: Windows): Entry[] {
  const later = (a: ModelRecord, b: ModelRecord, date: string) => (a[date] as string) > (b[date] as string) || (a[date] === b[date] && a.__id > b.__id);
  const disputes = new Map<string, { cb?: ModelRecord; pa?: ModelRecord }>();
  const at = (rec: ModelRecord) => {
    const key = JSON.stringify([rec.__shop, rec.acq_ref_nr]);
    if (!disputes.has(key)) disputes.set(key, {});
    return disputes.get(key)!;
  };
  for (const rec of records.chargeback) {
    const d = at(rec);
    if (!d.cb || later(rec, d.cb, "chb_proc_date")) d.cb = rec;
  }
  for (const rec of records.pre_arbitration) {
    const d = at(rec);
    if (!d.pa || later(rec, d.pa, "case_date")) d.pa = rec;
  }
  const out: Entry[] = [];
  for (const { cb, pa } of disputes.values()) {
    if (pa) {
      if (pa.merchant_decision !== null) continue;
      const scheme = binScheme(pa.card as string);
      const base = pa.case_date as string;
      out.push({ kind: "pre_arbitration", rec: pa, answer_by: plusDays(base, windows.answer(scheme, "PRE_ARBITRATION")), expires_on: plusDays(base, windows.expiry(scheme, "PRE_ARBITRATION")) });
    } else if (cb) {
      const fn = cb.function_code as number;
      if (cb.merchant_decision !== null || cb.rev_indicator === "R" || ![450, 451, 453, 454].includes(fn)) continue;
      const stage: Stage = fn === 450 || fn === 453 ? "FIRST_CHARGEBACK" : "ARBITRATION_CHARGEBACK";
      const scheme = cb.card_type as Scheme;
      const base = cb.chb_proc_date as string;
      out.push({ kind: "chargeback", rec: cb, answer_by: plusDays(base, windows.answer(scheme, stage)), expires_on: plusDays(base, windows.expiry(scheme, stage)) });
    }
  }
  return out.sort((a, b) => compareBytes(a.answer_by, b.answer_by) || compareBytes(a.kind, b.kind) || a.rec.__id - b.rec.__id);
}

function modelWorklist(entries: Entry[], body: WorklistBody, access: readonly string[]) {
  const shops = body.shop_codes?.length ? body.shop_codes : access;
  const kinds = body.kinds?.length ? body.kinds : ["chargeback", "pre_arbitration"];
  const statuses = body.statuses?.length ? body.statuses : ["due", "overdue"];
  const today = body.as_of ?? serverToday();
  const selected = entries.filter(
    (e) =>
      shops.includes(e.rec.__shop) &&
      kinds.includes(e.kind) &&
      statuses.includes(statusOf(today, e.answer_by, e.expires_on)) &&
      (!body.answer_by_from || e.answer_by >= body.answer_by_from) &&
      (!body.answer_by_to || e.answer_by <= body.answer_by_to) &&
      (!body.expiry_from || e.expires_on >= body.expiry_from) &&
      (!body.expiry_to || e.expires_on <= body.expiry_to),
  );
  const perPage = body.per_page ?? 10;
  const page = body.page ?? 0;
  return {
    content: selected
      .slice(page * perPage, (page + 1) * perPage)
      .map((e) => ({ kind: e.kind, answer_by: e.answer_by, status: statusOf(today, e.answer_by, e.expires_on), record: publicRecord(e.rec, e.kind) })),
    totalElements: selected.length,
    totalPages: Math.ceil(selected.length / perPage),
  };
}

// ---- Disputes made for the worklist ---------------------------------------------------------

const CB_COLUMNS = [
  "shop_code", "card", "acq_ref_nr", "merchant_id", "merchant_name", "reason_code", "parent_mrch_id", "parent_mrch_name",
  "mcc_code", "eci_sli", "doc_indicator", "chb_proc_date", "comments", "function_code", "function_code_name", "rev_indicator",
  "acq_bin", "chb_refer_num", "card_type", "chb_tr_date", "chb_amount", "chb_ccy", "chb_settl_amount", "chb_settl_ccy",
  "chb_amount_transaction_ccy", "tr_amount", "tr_ccy", "tr_date_time", "rev_amount", "rev_ccy", "rev_date_time", "payment_id",
  "xid", "merchant_decision", "merchant_resp_date", "merchant_comments", "merchant_iban_code", "transaction_id",
  "card_acceptor_id", "payment_order_nr",
];
const PA_COLUMNS = [
  "shop_code", "card", "acq_ref_nr", "merchant_id", "merchant_name", "tr_date_time", "amount", "ccy", "xid", "transaction_id",
  "card_acceptor_id", "case_date", "case_stage", "fdl_comments", "merchant_decision", "payment_id", "payment_order_nr",
];

interface CbMessage {
  shop: string;
  acq: string;
  date: string;
  fn: number;
  cardType: Scheme;
  rev?: "R" | " " | null;
  decision?: string | null;
}

interface PaMessage {
  shop: string;
  acq: string;
  date: string;
  card: string;
  decision?: string | null;
}

let serial = 0;

function cbRecord(m: CbMessage, fileDate: string): ModelRecord {
  serial++;
  const rec: Record<string, string | number | null> = Object.fromEntries(CB_COLUMNS.map((c) => [c, null]));
  delete rec.shop_code;
  Object.assign(rec, {
    bank_id: "29",
    file_date: fileDate,
    card: `${m.cardType === "MC" ? "545454" : "411111"}%${String(serial % 10000).padStart(4, "0")}`,
    acq_ref_nr: m.acq,
    merchant_id: "M-WL",
    reason_code: m.cardType === "MC" ? 4837 : 83,
    doc_indicator: serial % 3 === 0 ? " " : 0,
    chb_proc_date: m.date,
    function_code: m.fn,
    rev_indicator: m.rev ?? null,
    card_type: m.cardType,
    chb_amount: `${serial}.${String(serial % 100).padStart(2, "0")}`,
    chb_ccy: "EUR",
    rev_amount: m.rev === "R" ? "1.05" : null,
    payment_id: `PAY-WL-${serial}`,
    merchant_decision: m.decision ?? null,
    merchant_resp_date: m.decision ? plusDays(m.date, 3) : null,
    payment_order_nr: serial % 4 === 0 ? null : `WL-${serial}`,
  });
  return { ...rec, __id: 0, __shop: m.shop } as ModelRecord;
}

function paRecord(m: PaMessage, fileDate: string, bankId: string): ModelRecord {
  serial++;
  return {
    __id: 0,
    __shop: m.shop,
    bank_id: bankId,
    file_date: fileDate,
    card: m.card,
    acq_ref_nr: m.acq,
    merchant_id: "M-WL",
    merchant_name: null,
    tr_date_time: "2025-12-01 10:00:00",
    amount: `${serial}.50`,
    ccy: "EUR",
    xid: null,
    transaction_id: null,
    card_acceptor_id: null,
    case_date: m.date,
    case_stage: "Pre-arbitration",
    fdl_comments: null,
    merchant_decision: m.decision ?? null,
    payment_id: `PA-WL-${serial}`,
    payment_order_nr: null,
  };
}

interface WlFile {
  name: string;
  kind: Kind;
  records: ModelRecord[];
}

function cbFile(fileDate: string, messages: CbMessage[]): WlFile {
  return { name: `CHB_${fileDate.replaceAll("-", "")}.csv`, kind: "chargeback", records: messages.map((m) => cbRecord(m, fileDate)) };
}

function paFile(bankId: string, fileDate: string, messages: PaMessage[]): WlFile {
  return { name: `PREARB_${bankId}_${fileDate.replaceAll("-", "")}.csv`, kind: "pre_arbitration", records: messages.map((m) => paRecord(m, fileDate, bankId)) };
}

/** Writes the files and imports them with the real command; the records get their IDs in import order. */
async function importFiles(dir: string, files: WlFile[], records: Records, env: Record<string, string>): Promise<void> {
  const paths = files.map((file) => {
    const columns = file.kind === "chargeback" ? CB_COLUMNS : PA_COLUMNS;
    const rows = file.records.map((rec) => columns.map((c) => (c === "shop_code" ? rec.__shop : rec[c] === null ? "" : String(rec[c]))));
    const p = path.join(dir, file.name);
    fs.writeFileSync(p, stringify([columns, ...rows]));
    return p;
  });
  const result = await runCli("import.ts", paths, env);
  expect(result.code, result.stdout + result.stderr).toBe(0);
  for (const file of files) {
    for (const rec of file.records) {
      rec.__id = records[file.kind].length + 1;
      records[file.kind].push(rec);
    }
  }
}

const DATES = Array.from({ length: 40 }, (_, i) => plusDays("2026-01-20", i * 2));
// BINs on both sides of every boundary of the rule: 4, 51-55, 2221-2720, and neither.
const BINS = ["411111", "400000", "499999", "510000", "512345", "559999", "222100", "272099", "500000", "560000", "222099", "272100", "371449", "601100", "300000"];

/** The targeted disputes: each named by its acq_ref_nr, checked one by one below. */
function scenarioFiles(): WlFile[] {
  const s = "shop-a";
  return [
    cbFile("2026-01-10", [
      { shop: s, acq: "WL-REVERSED", date: "2026-02-01", fn: 450, cardType: "MC" },
      { shop: s, acq: "WL-ARBITRATION", date: "2026-02-01", fn: 450, cardType: "MC" },
      { shop: s, acq: "WL-CASE", date: "2026-02-20", fn: 453, cardType: "VISA" },
      { shop: s, acq: "WL-DECIDED", date: "2026-02-01", fn: 450, cardType: "VISA", decision: "Represent doc provided" },
      { shop: s, acq: "WL-DECIDED-BEFORE", date: "2026-02-01", fn: 450, cardType: "VISA", decision: "Accept CB" },
      { shop: s, acq: "WL-FN-452", date: "2026-02-01", fn: 452, cardType: "MC" },
      { shop: s, acq: "WL-TIE", date: "2026-02-03", fn: 450, cardType: "MC" },
      { shop: s, acq: "WL-VISA-LIMIT", date: "2026-02-20", fn: 450, cardType: "VISA" },
      { shop: "zz", acq: "WL-REVERSED", date: "2026-02-01", fn: 450, cardType: "MC" },
    ]),
    cbFile("2026-01-11", [
      { shop: s, acq: "WL-REVERSED", date: "2026-02-02", fn: 450, cardType: "MC", rev: "R" },
      { shop: s, acq: "WL-ARBITRATION", date: "2026-02-15", fn: 451, cardType: "MC" },
      { shop: s, acq: "WL-DECIDED-BEFORE", date: "2026-02-05", fn: 451, cardType: "VISA" },
      // Same processing date as the first message: the higher ID is the current one.
      { shop: s, acq: "WL-TIE", date: "2026-02-03", fn: 999, cardType: "MC" },
    ]),
    paFile("29", "2026-01-12", [
      // A case is the current item even when its date is earlier than the chargeback's.
      { shop: s, acq: "WL-CASE", date: "2026-02-10", card: "222100%0001" },
      { shop: s, acq: "WL-BIN-VISA", date: "2026-02-10", card: "400000%0001" },
      { shop: s, acq: "WL-BIN-OTHER", date: "2026-02-10", card: "601100%0001" },
      { shop: s, acq: "WL-CASE-DECIDED", date: "2026-02-10", card: "512345%0001" },
      { shop: s, acq: "WL-CASE-DECIDED", date: "2026-02-11", card: "512345%0001", decision: "rebuttal" },
    ]),
  ];
}

/** Random disputes of 1 to 4 messages over shops, dates, function codes, reversals, decisions and BINs. */
function randomFiles(seed: number): WlFile[] {
  const r = prng(seed);
  const cbs: CbMessage[][] = [[], []];
  const pas: PaMessage[][] = [[], []];
  const keys: { shop: string; acq: string }[] = [];
  for (let i = 0; i < 260; i++) {
    const key = r.chance(0.1) && keys.length ? { shop: r.pick(SHOPS), acq: r.pick(keys).acq } : { shop: r.pick(SHOPS), acq: `WL-R${i}` };
    keys.push(key);
    const messages = r.pick([1, 1, 2, 2, 3, 4]);
    for (let j = 0; j < messages; j++) {
      if (r.chance(0.7)) {
        const cardType = r.pick(["MC", "VISA"] as const);
        cbs[r.int(0, 1)].push({
          ...key,
          date: r.pick(DATES),
          fn: r.pick([450, 450, 451, 453, 454, 450, 453, 452, 999, 0]),
          cardType,
          rev: r.chance(0.15) ? "R" : r.chance(0.2) ? " " : null,
          decision: r.chance(0.15) ? "Represent CR processed" : null,
        });
      } else {
        pas[r.int(0, 1)].push({ ...key, date: r.pick(DATES), card: `${r.pick(BINS)}%${r.int(1000, 9999)}`, decision: r.chance(0.2) ? r.pick(["accept", "rebuttal"]) : null });
      }
    }
  }
  return [cbFile("2026-01-13", cbs[0]), cbFile("2026-01-14", cbs[1]), paFile("44", "2026-01-15", pas[0]), paFile("29", "2026-01-16", pas[1])];
}

// ---- The test -------------------------------------------------------------------------------

/** Windows unlike the defaults: MC's first chargeback shorter, VISA's cut by its scheme limit, cases of an unknown BIN on VISA's. */
const OTHER_WINDOWS = {
  DEADLINE_DAYS_MC_FIRST_CHARGEBACK: "5",
  DEADLINE_DAYS_VISA_FIRST_CHARGEBACK: "40",
  SCHEME_LIMIT_DAYS_VISA_FIRST_CHARGEBACK: "25",
  DEADLINE_DAYS_MC_ARBITRATION_CHARGEBACK: "21",
  SCHEME_LIMIT_DAYS_MC_ARBITRATION_CHARGEBACK: "9",
  DEADLINE_DAYS_MC_PRE_ARBITRATION: "20",
  DEADLINE_DAYS_VISA_PRE_ARBITRATION: "21",
  SCHEME_LIMIT_DAYS_VISA_PRE_ARBITRATION: "6",
};

/** Cases of an unknown scheme: both windows end on the same day, the schemes' limits differ. */
const TIE_WINDOWS = {
  DEADLINE_DAYS_MC_PRE_ARBITRATION: "10",
  DEADLINE_DAYS_VISA_PRE_ARBITRATION: "10",
  SCHEME_LIMIT_DAYS_MC_PRE_ARBITRATION: "40",
  SCHEME_LIMIT_DAYS_VISA_PRE_ARBITRATION: "20",
};

function randomBody(r: ReturnType<typeof prng>, access: readonly string[], entries: Entry[]): WorklistBody {
  const body: WorklistBody = {};
  const dates = [...new Set([...entries.map((e) => e.answer_by), "2025-12-31", "2026-02-15", "2026-03-20", "2026-06-01"])].sort();
  // The day a status changes and the day after, for both dates of every dispute.
  const edges = [...new Set(entries.flatMap((e) => [e.answer_by, plusDays(e.answer_by, 1), e.expires_on, plusDays(e.expires_on, 1)]))].sort();
  if (r.chance(0.9)) body.as_of = r.pick(edges);
  if (r.chance(0.5)) body.statuses = r.pick([["due"], ["overdue"], ["expired"], ["due", "expired"], ["expired", "overdue"], ["expired", "due", "due"], [], ALL_STATUSES, ["due", "overdue"]]);
  if (r.chance(0.05)) body.statuses = null;
  if (r.chance(0.15)) body.expiry_from = r.pick(edges);
  if (r.chance(0.15)) body.expiry_to = r.pick(edges.filter((d) => !body.expiry_from || d >= body.expiry_from));
  if (r.chance(0.3)) body.answer_by_from = r.pick(dates);
  if (r.chance(0.3)) body.answer_by_to = r.pick(dates.filter((d) => !body.answer_by_from || d >= body.answer_by_from));
  if (r.chance(0.3)) body.shop_codes = r.subset(access, 4);
  if (r.chance(0.35)) body.kinds = r.pick([["chargeback"], ["pre_arbitration"], ["pre_arbitration", "chargeback"], [], ["chargeback", "chargeback"]]);
  if (r.chance(0.1)) body.kinds = null;
  body.per_page = r.pick([10, 10, 11, 25, 37, 100, 1000, r.int(10, 1000)]);
  const pages = Math.max(1, Math.ceil(entries.length / body.per_page));
  body.page = r.chance(0.1) ? pages + r.int(0, 3) : r.chance(0.5) ? 0 : r.int(0, Math.min(pages, 4));
  if (body.page === 0 && r.chance(0.3)) delete body.page;
  return body;
}

describe.each(backends)("POST /api/worklist on $name", (backend) => {
  let env: ApiEnv;
  let other: TestServer;
  let tie: TestServer;
  let dir: string;
  const records: Records = { chargeback: [], pre_arbitration: [] };
  const defaults = windowsOf({});
  const custom = windowsOf(OTHER_WINDOWS);

  const post = (server: TestServer, body: unknown, credential: Credential = "wide", init: { headers?: Record<string, string>; rawBody?: string; method?: string } = {}) => {
    const cred = CREDENTIALS[credential];
    return fetch(`${server.url}/api/worklist`, {
      method: init.method ?? "POST",
      headers: { "Content-Type": "application/json", ...signedHeaders(cred.shop, cred.password), ...init.headers },
      body: init.method === "GET" ? undefined : (init.rawBody ?? JSON.stringify(body)),
    });
  };

  async function agree(server: TestServer, windows: Windows, seed: number, requests: number) {
    const entries = modelEntries(records, windows);
    const r = prng(seed);
    let nonEmpty = 0;
    for (let i = 0; i < requests; i++) {
      const credential = r.pick(["wide", "wide", "narrow", "self"] as const);
      const access = CREDENTIALS[credential].access;
      const body = randomBody(r, access, entries);
      const res = await post(server, body, credential);
      const text = await res.text();
      expect(res.status, `${JSON.stringify(body)} -> ${text}`).toBe(200);
      const got = JSON.parse(text);
      const want = modelWorklist(entries, body, access);
      expect({ totalElements: got.totalElements, totalPages: got.totalPages }, JSON.stringify(body)).toEqual({ totalElements: want.totalElements, totalPages: want.totalPages });
      expect(got.content, JSON.stringify(body)).toEqual(want.content);
      if (got.content.length) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(requests * 0.3);
  }

  /** The worklist items of one acq_ref_nr for the wide credential. */
  async function itemsOf(server: TestServer, acq: string) {
    const body = await (await post(server, { ...EVERY_STATUS, per_page: 1000, shop_codes: ["shop-a"] })).json();
    expect(body.totalElements).toBeLessThanOrEqual(1000);
    return (body.content as { kind: Kind; answer_by: string; record: { acq_ref_nr: string; payment_id: string } }[]).filter((item) => item.record.acq_ref_nr === acq);
  }

  beforeAll(async () => {
    env = await setupApiEnv(backend);
    records.chargeback.push(...env.fixture.records.chargeback);
    records.pre_arbitration.push(...env.fixture.records.pre_arbitration);
    dir = tempDir("disputes-worklist-");
    await importFiles(dir, [...scenarioFiles(), ...randomFiles(99)], records, env.env);
    // A second server on the same database, with other windows.
    other = await startServer({ ...env.env, ...OTHER_WINDOWS });
    tie = await startServer({ ...env.env, ...TIE_WINDOWS });
  });
  afterAll(async () => {
    await other?.stop();
    await tie?.stop();
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  it("lists each dispute once, by its current item, with the answer-by date of its stage and scheme", async () => {
    expect(await itemsOf(env.server, "WL-REVERSED")).toEqual([]);
    expect(await itemsOf(env.server, "WL-DECIDED")).toEqual([]);
    expect(await itemsOf(env.server, "WL-FN-452")).toEqual([]);
    expect(await itemsOf(env.server, "WL-TIE")).toEqual([]);
    expect(await itemsOf(env.server, "WL-CASE-DECIDED")).toEqual([]);
    // The reversal closes shop-a's dispute only; zz's with the same reference still waits.
    const zz = await (await post(env.server, { ...EVERY_STATUS, shop_codes: ["zz"], per_page: 1000 })).json();
    expect(zz.content.filter((i: { record: { acq_ref_nr: string } }) => i.record.acq_ref_nr === "WL-REVERSED")).toHaveLength(1);

    const pick = (items: Awaited<ReturnType<typeof itemsOf>>) => items.map((i) => ({ kind: i.kind, answer_by: i.answer_by }));
    for (const [server, days] of [
      [env.server, { arbitration: 14, decidedBefore: 14, caseMc: 14, caseVisa: 14, caseOther: 14 }],
      [other, { arbitration: 9, decidedBefore: 14, caseMc: 20, caseVisa: 6, caseOther: 6 }],
    ] as const) {
      expect(pick(await itemsOf(server, "WL-ARBITRATION"))).toEqual([{ kind: "chargeback", answer_by: plusDays("2026-02-15", days.arbitration) }]);
      expect(pick(await itemsOf(server, "WL-DECIDED-BEFORE"))).toEqual([{ kind: "chargeback", answer_by: plusDays("2026-02-05", days.decidedBefore) }]);
      expect(pick(await itemsOf(server, "WL-CASE"))).toEqual([{ kind: "pre_arbitration", answer_by: plusDays("2026-02-10", days.caseMc) }]);
      expect(pick(await itemsOf(server, "WL-BIN-VISA"))).toEqual([{ kind: "pre_arbitration", answer_by: plusDays("2026-02-10", days.caseVisa) }]);
      expect(pick(await itemsOf(server, "WL-BIN-OTHER"))).toEqual([{ kind: "pre_arbitration", answer_by: plusDays("2026-02-10", days.caseOther) }]);
    }
  });

  it("gives a dispute its status on as_of: due through its answer-by date, overdue through its expiry date, then expired", async () => {
    const statusOn = async (server: TestServer, acq: string, asOf: string) => {
      const body = await (await post(server, { ...EVERY_STATUS, as_of: asOf, shop_codes: ["shop-a"], per_page: 1000 })).json();
      const items = (body.content as { status: string; record: { acq_ref_nr: string } }[]).filter((i) => i.record.acq_ref_nr === acq);
      expect(items, `${acq} on ${asOf}`).toHaveLength(1);
      return items[0].status;
    };
    // [server, dispute, base date, days to the answer-by date, days to the expiry date]
    const cases: [TestServer, string, string, number, number][] = [
      [env.server, "WL-ARBITRATION", "2026-02-15", 14, 45],
      [env.server, "WL-VISA-LIMIT", "2026-02-20", 14, 30],
      // A case whose BIN names no scheme: both windows 14, both limits 30.
      [env.server, "WL-BIN-OTHER", "2026-02-10", 14, 30],
      // Mastercard's arbitration limit (9) below its window (21): never overdue, expired the day after.
      [other, "WL-ARBITRATION", "2026-02-15", 9, 9],
      // Visa's first-chargeback limit (25) below its window (40).
      [other, "WL-VISA-LIMIT", "2026-02-20", 25, 25],
      // Unknown scheme: Visa's window (6) ends first, so Visa's limit (6) applies.
      [other, "WL-BIN-OTHER", "2026-02-10", 6, 6],
      // Unknown scheme, both windows 10: the smaller limit (Visa's 20, not Mastercard's 40).
      [tie, "WL-BIN-OTHER", "2026-02-10", 10, 20],
    ];
    for (const [server, acq, base, answerDays, expiryDays] of cases) {
      const answerBy = plusDays(base, answerDays);
      const expiresOn = plusDays(base, expiryDays);
      const label = `${acq} ${answerDays}/${expiryDays}`;
      expect(await statusOn(server, acq, plusDays(base, 1)), label).toBe("due");
      expect(await statusOn(server, acq, answerBy), label).toBe("due");
      expect(await statusOn(server, acq, plusDays(answerBy, 1)), label).toBe(answerDays === expiryDays ? "expired" : "overdue");
      expect(await statusOn(server, acq, expiresOn), label).toBe(answerDays === expiryDays ? "due" : "overdue");
      expect(await statusOn(server, acq, plusDays(expiresOn, 1)), label).toBe("expired");
      // Left out by default once expired; listed with statuses ["expired"] and an expiry range that holds it.
      const byDefault = await (await post(server, { as_of: plusDays(expiresOn, 1), shop_codes: ["shop-a"], per_page: 1000 })).json();
      expect(byDefault.content.filter((i: { record: { acq_ref_nr: string } }) => i.record.acq_ref_nr === acq), label).toEqual([]);
      const missed = async (from: string, to: string) =>
        (await (await post(server, { statuses: ["expired"], as_of: plusDays(expiresOn, 30), expiry_from: from, expiry_to: to, shop_codes: ["shop-a"], per_page: 1000 })).json()).content.filter(
          (i: { record: { acq_ref_nr: string } }) => i.record.acq_ref_nr === acq,
        ).length;
      expect(await missed(expiresOn, expiresOn), label).toBe(1);
      expect(await missed(plusDays(expiresOn, 1), plusDays(expiresOn, 30)), label).toBe(0);
    }
  });

  it("agrees with the model under windows whose unknown-scheme cases tie", async () => {
    await agree(tie, windowsOf(TIE_WINDOWS), 31, 60);
  });

  it("agrees with the model on 200 random requests under the default windows", async () => {
    await agree(env.server, defaults, 2024, 200);
  });

  it("moves the dates with the configured windows, and agrees with the model under them", async () => {
    const a = await (await post(env.server, { ...EVERY_STATUS, per_page: 1000 })).json();
    const b = await (await post(other, { ...EVERY_STATUS, per_page: 1000 })).json();
    expect(b.totalElements).toBe(a.totalElements);
    const dateOf = (body: { content: { kind: string; answer_by: string; record: unknown }[] }) => new Map(body.content.map((i) => [JSON.stringify([i.kind, i.record]), i.answer_by]));
    const before = dateOf(a);
    const after = dateOf(b);
    const moved = [...before].filter(([key, date]) => after.get(key) !== date).length;
    expect(moved).toBeGreaterThan(before.size / 2);
    await agree(other, custom, 77, 150);
  });

  it("pages through the whole worklist returning each dispute once, and past the end answers the totals", async () => {
    const seen: string[] = [];
    let total = -1;
    for (let page = 0; ; page++) {
      const body = await (await post(env.server, { ...EVERY_STATUS, page, per_page: 13 })).json();
      if (total < 0) total = body.totalElements;
      expect(body.totalElements).toBe(total);
      expect(body.totalPages).toBe(Math.ceil(total / 13));
      if (body.content.length === 0) break;
      // Case payment ids repeat in the fixture ("PAY-shared"): the whole item names a dispute.
      seen.push(...body.content.map((i: unknown) => JSON.stringify(i)));
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
    expect(total).toBe(modelEntries(records, defaults).length);
  });

  it("writes each item as kind, answer_by and the record exactly as the searches write it", async () => {
    const res = await post(env.server, { ...EVERY_STATUS, as_of: "2026-03-01", per_page: 1000 });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const text = await res.text();
    const body = JSON.parse(text);
    expect(Object.keys(body)).toEqual(["content", "totalPages", "totalElements"]);
    for (const item of body.content) expect(Object.keys(item)).toEqual(["kind", "answer_by", "status", "record"]);
    // Amounts with exactly two decimals, never through a float.
    expect(text).toMatch(/"chb_amount":\d+\.\d\d[,}]/);
    expect(text).toMatch(/"amount":\d+\.\d\d[,}]/);
    // The current item of WL-ARBITRATION is its later message, the first of an ID-descending search;
    // these records hold no "}" in their values, so the search's first record ends at the first one.
    const search = await (await env.post("chargeback", { acq_ref_nrs: ["WL-ARBITRATION"], shop_codes: ["shop-a"], sortOrder: "desc" })).text();
    const recordText = search.slice(search.indexOf("[") + 1, search.indexOf("}") + 1);
    expect(JSON.parse(recordText).function_code).toBe(451);
    expect(text).toContain(`{"kind":"chargeback","answer_by":"${plusDays("2026-02-15", 14)}","status":"due","record":${recordText}}`);
  });

  it("checks as the searches do: 401 before 400 before 403, and 405 / 415", async () => {
    const problem = async (res: Response, status: number) => {
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
      return (await res.json()) as { errors?: { field: string }[]; detail: string };
    };
    const url = `${env.server.url}/api/worklist`;
    const unsigned = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ kinds: ["x"], shop_codes: ["nobody"] }) });
    const first = await problem(unsigned, 401);
    const wrong = await post(env.server, { kinds: ["x"] }, "wide", { headers: { "X-Signature": "0".repeat(64) } });
    const second = await problem(wrong, 401);
    expect({ ...second, request_id: undefined }).toEqual({ ...first, request_id: undefined });
    // Validity before scope: a request that breaks both rules is a 400.
    const both = await problem(await post(env.server, { kinds: ["x"], shop_codes: ["nobody"] }, "self"), 400);
    expect(both.errors?.map((e) => e.field)).toEqual(["kinds[0]"]);
    const outside = await problem(await post(env.server, { shop_codes: ["zz", "shop-a"] }, "self"), 403);
    expect(outside.detail).toContain("shop-a");
    const fields = async (body: unknown, raw?: string) => (await problem(await post(env.server, body, "wide", raw === undefined ? {} : { rawBody: raw }), 400)).errors?.map((e) => e.field);
    expect(await fields({ shop_code: ["zz"] })).toEqual(["shop_code"]);
    expect(await fields({ sortKey: "ID" })).toEqual(["sortKey"]);
    expect(await fields({ kinds: "chargeback" })).toEqual(["kinds"]);
    expect(await fields({ answer_by_from: "2026-02-30" })).toEqual(["answer_by_from"]);
    expect(await fields({ answer_by_to: "2026-2-3" })).toEqual(["answer_by_to"]);
    expect(await fields({ statuses: ["due", "late"] })).toEqual(["statuses[1]"]);
    expect(await fields({ statuses: "expired" })).toEqual(["statuses"]);
    expect(await fields({ as_of: "2026-02-30" })).toEqual(["as_of"]);
    expect(await fields({ as_of: "today" })).toEqual(["as_of"]);
    expect(await fields({ expiry_from: "2026-03-02", expiry_to: "2026-03-01" })).toEqual(["expiry_from"]);
    expect(await fields({ status: ["due"] })).toEqual(["status"]);
    expect(await fields({ answer_by_from: "2026-03-02", answer_by_to: "2026-03-01" })).toEqual(["answer_by_from"]);
    expect(await fields({ per_page: 1001 })).toEqual(["per_page"]);
    expect(await fields({ per_page: 10.5 })).toEqual(["per_page"]);
    expect(await fields({ page: 1_000_001 })).toEqual(["page"]);
    expect(await fields({ shop_codes: ["zz", ""] })).toEqual(["shop_codes[1]"]);
    expect(await fields(undefined, "[]")).toEqual([""]);
    await problem(await post(env.server, undefined, "wide", { rawBody: "{" }), 400);
    // Null counts as omitted, an empty body as {}.
    const plain = await (await post(env.server, {})).json();
    expect(await (await post(env.server, undefined, "wide", { rawBody: "" })).json()).toEqual(plain);
    const nulls = { shop_codes: null, kinds: null, statuses: null, as_of: null, answer_by_from: null, answer_by_to: null, expiry_from: null, expiry_to: null, page: null, per_page: null };
    expect(await (await post(env.server, nulls)).json()).toEqual(plain);
    // The defaults: due and overdue, on the server's date in UTC.
    expect(await (await post(env.server, { statuses: ["due", "overdue"], as_of: serverToday() })).json()).toEqual(plain);
    const get = await post(env.server, undefined, "wide", { method: "GET" });
    await problem(get, 405);
    expect(get.headers.get("allow")).toBe("POST");
    await problem(await post(env.server, {}, "wide", { headers: { "Content-Type": "text/plain" } }), 415);
  });

  it("changes at once when an import changes a dispute's current item", async () => {
    const entries = modelEntries(records, defaults);
    const waiting = entries.filter((e) => e.kind === "chargeback" && e.rec.__shop === "shop-a" && /^WL-R\d+$/.test(String(e.rec.acq_ref_nr)));
    const reversed = waiting[0].rec;
    const escalated = waiting[1].rec;
    const paymentIds = async () =>
      new Set(((await (await post(env.server, { ...EVERY_STATUS, per_page: 1000, shop_codes: ["shop-a"] })).json()).content as { kind: string; record: { payment_id: string } }[]).map((i) => `${i.kind}:${i.record.payment_id}`));
    const before = await paymentIds();
    expect(before.has(`chargeback:${reversed.payment_id}`)).toBe(true);
    expect(before.has(`chargeback:${escalated.payment_id}`)).toBe(true);

    const later = plusDays("2026-03-31", 10);
    await importFiles(
      dir,
      [
        cbFile("2026-04-01", [
          { shop: "shop-a", acq: reversed.acq_ref_nr as string, date: later, fn: reversed.function_code as number, cardType: reversed.card_type as Scheme, rev: "R" },
          { shop: "shop-a", acq: "WL-NEW", date: later, fn: 453, cardType: "VISA" },
        ]),
        paFile("29", "2026-04-02", [{ shop: "shop-a", acq: escalated.acq_ref_nr as string, date: later, card: "559999%1234" }]),
      ],
      records,
      env.env,
    );
    const after = await paymentIds();
    expect(after.has(`chargeback:${reversed.payment_id}`)).toBe(false);
    expect(after.has(`chargeback:${escalated.payment_id}`)).toBe(false);
    const newCase = records.pre_arbitration.at(-1)!;
    const newCb = records.chargeback.at(-1)!;
    expect(after.has(`pre_arbitration:${newCase.payment_id}`)).toBe(true);
    expect(after.has(`chargeback:${newCb.payment_id}`)).toBe(true);
    expect(after.size).toBe(before.size);
    // Both servers, with their own windows, still agree with the model record for record.
    await agree(env.server, defaults, 5, 60);
    await agree(other, custom, 6, 60);
  });

  it("is in the OpenAPI document, generated from the same schema, as an extension", async () => {
    const doc = await (await fetch(`${env.server.url}/api/openapi.json`)).json();
    const op = doc.paths["/api/worklist"].post;
    expect(op.tags).toEqual(["Extensions"]);
    const request = doc.components.schemas.WorklistRequest;
    expect(Object.keys(request.properties).sort()).toEqual(["answer_by_from", "answer_by_to", "as_of", "expiry_from", "expiry_to", "kinds", "page", "per_page", "shop_codes", "statuses"]);
    expect(request.properties.statuses.anyOf[0].items.enum).toEqual(["due", "overdue", "expired"]);
    const item = doc.components.schemas.WorklistChargeback;
    expect(Object.keys(item.properties)).toEqual(["kind", "answer_by", "status", "record"]);
    expect(request.additionalProperties).toBe(false);
    expect(doc.components.schemas.WorklistPage).toBeDefined();
  });
});
