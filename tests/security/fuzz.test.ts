import http from "node:http";
import { parse as parseCsv } from "csv-parse/sync";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACQ_REFS, CREDENTIALS, FILE_DATES, type Kind, MERCHANTS, type ModelRequest, modelSearch, ORDERS, PARENTS, publicRecord, SHOPS, TRANSACTION_IDS } from "../api/fixture";
import { type ApiEnv, newNonce, sharedApiEnv, sign, signedHeaders } from "../api/harness";
import { addUser, signIn } from "../helpers/accounts";
import { backends, dropCreatedDatabases } from "../helpers/db";

/**
 * A property-based fuzzer: thousands of generated requests, hostile and well-formed, against
 * `next start` on each backend, to every route. Every answer must be one the contract allows for
 * its route (never a 5xx), no request may go unanswered for 10 seconds, and at the end the server
 * still runs and is healthy.
 *
 * One seed per run, printed first; FUZZ_SEED=<n> replays a run (fast-check also prints the
 * counterexample's path). FUZZ_SCALE=<factor> sends more or fewer requests.
 */

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : (Date.now() ^ Math.floor(Math.random() * 2 ** 31)) >>> 0;
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
const TIMEOUT_MS = 10_000;
const MIB = 1024 * 1024;
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

const KINDS: Kind[] = ["chargeback", "pre_arbitration"];
const SORT_KEYS: Record<Kind, string[]> = {
  chargeback: ["ID", "SHOP_CODE", "MERCHANT_ID", "ACQ_REF_NR", "PAYMENT_ORDER_NR", "FILE_DATE"],
  pre_arbitration: ["ID", "SHOP_CODE", "MERCHANT_ID", "ACQ_REF_NR", "PAYMENT_ORDER_NR"],
};
const LIST_FIELDS: Record<Kind, string[]> = {
  chargeback: ["shop_codes", "acq_ref_nrs", "transaction_ids", "payment_order_nrs"],
  pre_arbitration: ["shop_codes", "acq_ref_nrs", "payment_ids", "payment_order_nrs"],
};
const TEXT_FIELDS: Record<Kind, string[]> = { chargeback: ["merchant_id", "parent_merchant_id"], pre_arbitration: ["merchant_id"] };
const ALL_FIELDS: Record<Kind, string[]> = {
  chargeback: ["file_date_from", "file_date_to", ...TEXT_FIELDS.chargeback, ...LIST_FIELDS.chargeback, "page", "per_page", "sortKey", "sortOrder"],
  pre_arbitration: ["file_date_from", "file_date_to", ...TEXT_FIELDS.pre_arbitration, ...LIST_FIELDS.pre_arbitration, "page", "per_page", "sortKey", "sortOrder"],
};
/** The export's URL keys (lib/url-state/dispute-view.ts) and the request fields they stand for. */
const EXPORT_KEYS: Record<Kind, Record<string, string>> = {
  chargeback: { from: "file_date_from", to: "file_date_to", shops: "shop_codes", merchant: "merchant_id", parent: "parent_merchant_id", arns: "acq_ref_nrs", txns: "transaction_ids", orders: "payment_order_nrs", sort: "sortKey", dir: "sortOrder" },
  pre_arbitration: { from: "file_date_from", to: "file_date_to", shops: "shop_codes", merchant: "merchant_id", arns: "acq_ref_nrs", payments: "payment_ids", orders: "payment_order_nrs", sort: "sortKey", dir: "sortOrder" },
};
const PAGES = ["/", "/login", "/chargebacks", "/pre-arbitration", "/docs"];

/** The dashboard user the fuzzer signs in; its list names a shop that has no records. */
const USER = { email: "fuzz@example.test", password: "fuzz-password-1", access: ["Zeta", "shop_b", "ghost-shop"] };

// ---- values ----------------------------------------------------------------------------------

const FIXTURE_VALUES = [...SHOPS, ...MERCHANTS, ...PARENTS, ...ACQ_REFS.slice(0, 6), ...ORDERS, ...TRANSACTION_IDS, "PAY-1", "PA-2", "PAY-shared"];

const TRICKY = [
  "", " ", "\t", "\u0000", "a\u0000b", "\ud800", "x\udc00", "\ufeff", "\u202e", "e\u0301", "'", '"', "\\", "\\u0000", "%", "%00", "%zz", "%s%n",
  "'; drop table chargebacks; --", "' or '1'='1", "1) or (1=1", "../../../etc/passwd", "<script>alert(1)</script>", "${7*7}", "{{7*7}}",
  "__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "NaN", "Infinity", "-0", "null", "true", "[]", "{}",
  "😀".repeat(50), "😀".repeat(51), "é".repeat(100), "x".repeat(100), "x".repeat(101), "ＳＨＯＰ-Ａ", "shop-a ", " shop-a", "SHOP-A", "shop-A", "ghost-shop",
  ...FIXTURE_VALUES,
];

/** Short strings of any kind: arbitrary code points, graphemes, and a list of known troublemakers. */
const shortText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  { weight: 4, arbitrary: fc.constantFrom(...TRICKY) },
);
/** Also strings far beyond every limit (up to 100,000 characters). */
const anyText = fc.oneof(
  { weight: 8, arbitrary: shortText },
  { weight: 1, arbitrary: fc.string({ unit: "binary-ascii", minLength: 101, maxLength: 400 }) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1000, max: 100_000 }), fc.constantFrom("x", "é", "😀", "\u0000")).map(([n, c]) => c.repeat(n)) },
);
const anyNumber = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 9, 10, 10.5, 11, 999, 1000, 1001, 1_000_000, 1_000_001, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), Number.MAX_VALUE, Number.MIN_VALUE, 1e-7, 0.1),
  fc.integer(),
  fc.double(),
);
/** Any JSON value, with hostile leaves and keys, a few levels deep. */
const junkKey = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "shop_code", "sortkey", "Page", "page ", "file_date", "$where", "a.b", "shop_codes[0]", "", "id", "ID"),
  shortText,
);
const { value: junkValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 4 },
    fc.constant(null),
    fc.boolean(),
    anyNumber,
    shortText,
    fc.array(tie("value"), { maxLength: 5 }),
    fc.dictionary(junkKey, tie("value"), { maxKeys: 4 }),
  ),
}));

// A date the contract accepts: any real calendar day of years 0001 to 9999, or one near the data.
const validDate = fc.oneof(
  fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  fc.constantFrom(...FILE_DATES.chargeback, ...FILE_DATES.pre_arbitration, "2024-02-29", "2025-12-31", "2026-02-10"),
);
const invalidDate = fc.oneof(
  fc.constantFrom(
    "2026-02-30", "2026-02-29", "2026-13-01", "2026-00-10", "2026-01-00", "2026-01-32", "2026-1-05", "26-01-05", "2026/01/05", "2026-01-05T00:00:00Z",
    " 2026-01-05", "2026-01-05 ", "２０２６-01-05", "0000-00-00", "+002026-01-05", "-2026-01-05", "20260105", "", "now", "2026-01-05\n",
  ),
  junkValue.filter((v) => typeof v !== "string" && v !== null),
);
const identifier = (pool: readonly string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...pool) },
    { weight: 2, arbitrary: fc.string({ unit: "binary", minLength: 1, maxLength: 100 }).filter((s) => s.length <= 100) },
    { weight: 1, arbitrary: fc.constantFrom("\u0000", "a\u0000b", "\ud800", "😀".repeat(50), "x".repeat(100), "'; drop table chargebacks; --", "%") },
  );
const SHOP_POOL = [...SHOPS, "ghost-shop", "SHOP-A", "shop-A", "zeta"];
const POOLS: Record<string, readonly string[]> = {
  shop_codes: SHOP_POOL,
  merchant_id: [...MERCHANTS, "M999"],
  parent_merchant_id: [...PARENTS, "P9"],
  acq_ref_nrs: [...ACQ_REFS, "nope"],
  transaction_ids: [...TRANSACTION_IDS, "T404"],
  payment_ids: ["PAY-shared", "PA-1", "PA-7", "PA-60", "PA-999"],
  payment_order_nrs: [...ORDERS, "none"],
};
const identifierList = (pool: readonly string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.array(identifier(pool), { maxLength: 12 }) },
    { weight: 1, arbitrary: fc.integer({ min: 900, max: 1000 }).map((n) => Array.from({ length: n }, (_, i) => (i % 7 === 0 ? pool[i % pool.length] : `v${i}-${"y".repeat(i % 90)}`))) },
  );
const validValue = (kind: Kind, field: string): fc.Arbitrary<unknown> => {
  if (field === "file_date_from" || field === "file_date_to") return validDate;
  if (field === "page") return fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constantFrom(0, 1_000_000), fc.integer({ min: 0, max: 1_000_000 }));
  if (field === "per_page") return fc.oneof(fc.constantFrom(10, 1000), fc.integer({ min: 10, max: 1000 }));
  if (field === "sortKey") return fc.constantFrom(...SORT_KEYS[kind]);
  if (field === "sortOrder") return fc.constantFrom("asc", "desc");
  if (LIST_FIELDS[kind].includes(field)) return identifierList(POOLS[field]);
  return identifier(POOLS[field]);
};
const invalidValue = (kind: Kind, field: string): fc.Arbitrary<unknown> => {
  if (field === "file_date_from" || field === "file_date_to") return invalidDate;
  if (field === "page") return fc.oneof(fc.constantFrom(-1, 1_000_001, 1.5, "1", true, [], {}, 2 ** 53, -0.5), junkValue);
  if (field === "per_page") return fc.oneof(fc.constantFrom(9, 1001, 10.5, "10", 0, -10, false), junkValue);
  if (field === "sortKey") return fc.oneof(fc.constantFrom("id", "ID ", "FILE_DATE", "file_date", "SHOP_CODE; drop table x", "shop_code", "", "__proto__", "constructor", "RANDOM()"), junkValue);
  if (field === "sortOrder") return fc.oneof(fc.constantFrom("ASC", "Desc", "", "descending", "asc ", "1", "-1"), junkValue);
  if (LIST_FIELDS[kind].includes(field)) {
    return fc.oneof(
      fc.array(fc.oneof(junkValue, fc.constantFrom("", "x".repeat(101), "😀".repeat(51))), { minLength: 1, maxLength: 6 }),
      fc.constant(Array.from({ length: 1001 }, (_, i) => `v${i}`)),
      junkValue.filter((v) => !Array.isArray(v) && v !== null),
    );
  }
  return fc.oneof(fc.constantFrom("", "x".repeat(101), "😀".repeat(51), 0, 1001, true, ["M001"], { $ne: null }), junkValue.filter((v) => typeof v !== "string" && v !== null));
};

// ---- bodies ----------------------------------------------------------------------------------

/** A request body as sent: text, or raw bytes (not necessarily UTF-8). */
interface Body {
  text?: string;
  bytes?: Uint8Array<ArrayBuffer>;
  /** the request the body stands for, when every value in it is valid */
  valid?: ModelRequest;
}

const size = (b: Body) => (b.bytes ? b.bytes.byteLength : Buffer.byteLength(b.text ?? ""));
/** JSON text of an object from its entries, so keys such as __proto__ and repeated keys go on the wire as generated. */
const objectText = (entries: [string, unknown][]) =>
  `{${entries.filter(([, v]) => v !== undefined).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;

/** A body every value of which the contract accepts: the server's answer can be predicted. */
function validBody(kind: Kind): fc.Arbitrary<Body> {
  const fields = Object.fromEntries(ALL_FIELDS[kind].map((f) => [f, fc.oneof({ weight: 8, arbitrary: validValue(kind, f) }, { weight: 1, arbitrary: fc.constant(null) })]));
  return fc.record(fields, { requiredKeys: [] }).map((raw) => {
    const req = raw as Record<string, unknown>;
    if (typeof req.file_date_from === "string" && typeof req.file_date_to === "string" && req.file_date_from > req.file_date_to) {
      [req.file_date_from, req.file_date_to] = [req.file_date_to, req.file_date_from];
    }
    return { text: objectText(Object.entries(req)), valid: req as ModelRequest };
  });
}

/** An object whose fields are valid, invalid or anything at all, plus unknown and prototype keys. */
function mixedObjectBody(kind: Kind): fc.Arbitrary<Body> {
  const otherKind = kind === "chargeback" ? "pre_arbitration" : "chargeback";
  const fieldEntry = fc.constantFrom(...ALL_FIELDS[kind], ...ALL_FIELDS[otherKind]).chain((field) =>
    fc
      .oneof(
        { weight: 3, arbitrary: validValue(kind, field) },
        { weight: 3, arbitrary: invalidValue(kind, field) },
        { weight: 1, arbitrary: junkValue },
        { weight: 1, arbitrary: anyText },
      )
      .map((value) => [field, value] as [string, unknown]),
  );
  const unknownEntry = fc.tuple(junkKey, junkValue);
  return fc
    .tuple(fc.array(fieldEntry, { maxLength: 8 }), fc.array(unknownEntry, { maxLength: 3 }), fc.boolean())
    .map(([fields, unknown, unknownFirst]) => ({ text: objectText(unknownFirst ? [...unknown, ...fields] : [...fields, ...unknown]) }));
}

const NUMBER_LITERALS = ["-0", "1e400", "-1e400", "1e-400", "1E2", "10.0", "1.0e1", "0x10", "010", "+1", ".5", "5.", "NaN", "Infinity", "1_000", "99999999999999999999999999999", "1e2"];

/** Text that is not JSON, or JSON that is not an object, or an object nested very deeply. */
const rawBody: fc.Arbitrary<Body> = fc.oneof(
  fc.constantFrom(
    "", " ", "\n\t ", "{", "}", "{not json", "{'page': 1}", '{"page": 1,}', '{"page": 1}{}', "{}{}", "[]", "[{}]", "null", "true", "0", '"text"', "\ufeff{}",
    '{"page": 1 /* comment */}', '{"sortKey": "ID"', '{"per_page": 10, "per_page": "x"}', '{"__proto__": {"page": 1}}', '{"constructor": {"prototype": {"x": 1}}}',
    '{"shop_codes": ["\\u0000"]}', '{"merchant_id": "\\ud800"}', '{"merchant_id": "\\u0000"}', '{"a": "\\x41"}', '{"a": "unterminated}', "\u0000", "{\u0000}",
  ).map((text) => ({ text })),
  fc.tuple(fc.constantFrom("page", "per_page", "merchant_id", "file_date_from", "shop_codes"), fc.constantFrom(...NUMBER_LITERALS)).map(([k, n]) => ({ text: `{"${k}": ${n}}` })),
  fc.jsonValue({ maxDepth: 3 }).filter((v) => v === null || typeof v !== "object" || Array.isArray(v)).map((v) => ({ text: JSON.stringify(v) })),
  fc.tuple(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom("array", "object", "open", "field")).map(([n, shape]) => ({
    text:
      shape === "array" ? "[".repeat(n) + "]".repeat(n)
      : shape === "object" ? '{"a":'.repeat(Math.min(n, 150_000)) + "1" + "}".repeat(Math.min(n, 150_000))
      : shape === "open" ? "[".repeat(n)
      : `{"acq_ref_nrs":${"[".repeat(n)}${"]".repeat(n)}}`,
  })),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ bytes })),
  fc.constantFrom('{"merchant_id":"M001"}', '{"merchant_id":"Mé"}', "{}").chain((json) =>
    fc.constantFrom(
      { bytes: new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from(json)]) },
      { bytes: new Uint8Array(Buffer.from(json, "utf16le")) },
      { bytes: new Uint8Array(Buffer.from(json, "latin1")) },
      { bytes: new Uint8Array([...Buffer.from(json).subarray(0, -2), 0xc3, 0x28, ...Buffer.from('"}')]) },
    ),
  ),
);

function anyBody(kind: Kind): fc.Arbitrary<Body> {
  return fc
    .oneof({ weight: 3, arbitrary: validBody(kind) }, { weight: 5, arbitrary: mixedObjectBody(kind) }, { weight: 3, arbitrary: rawBody })
    .filter((b) => size(b) < MIB - 1024);
}

// ---- headers ---------------------------------------------------------------------------------

/** Header values as fetch sends them: bytes 0x20-0xFF and tab (UTF-8 goes as its bytes). */
const latin1 = fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c));
const headerValue = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: latin1, maxLength: 60 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => Buffer.from(s, "utf8").toString("latin1")) },
  { weight: 2, arbitrary: fc.constantFrom(...TRICKY.filter((t) => /^[\t\x20-\x7e\x80-\xff]*$/.test(t))) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 100, max: 2000 }), fc.constantFrom("a", "0", "%", "\xff")).map(([n, c]) => c.repeat(n)) },
);
const maybeHeader = fc.option(headerValue, { nil: undefined, freq: 3 });

/** Content types: those the contract accepts, those it refuses (415), and junk of unknown verdict. */
const CONTENT_TYPES_OK = ["application/json", "application/json; charset=utf-8", "application/json;charset=UTF-8", "APPLICATION/JSON", 'application/json; charset="utf-8"', "application/json; foo=bar", "application/json ; charset=utf-8"];
const CONTENT_TYPES_BAD = [
  "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=iso-8859-1", "application/json; charset=utf-16",
  "application/json; charset=latin1", "application/jsonx", "application/json-patch+json", "application/problem+json", "text/json", "*/*", "application/*",
  "application/json, text/plain", "application/json; charset=utf-8; charset=latin1", "application/json; charset=ucs-2", "json",
];
type ContentType = { value?: string; verdict: "ok" | "bad" | "unknown" };
const contentType: fc.Arbitrary<ContentType> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...CONTENT_TYPES_OK).map((value) => ({ value, verdict: "ok" as const })) },
  { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES_BAD).map((value) => ({ value, verdict: "bad" as const })) },
  { weight: 1, arbitrary: fc.constant({ value: undefined, verdict: "bad" as const }) },
  { weight: 2, arbitrary: headerValue.map((value) => ({ value, verdict: "unknown" as const })) },
  { weight: 1, arbitrary: fc.constantFrom("application/json; charset", "application/json;;", "application/json; charset=", "application/json; charset=utf8", "application/json; Charset=UTF-8").map((value) => ({ value, verdict: "unknown" as const })) },
);

/** Cookies that hold no valid session. */
const junkCookie = fc.oneof(
  headerValue,
  headerValue.map((v) => `dr_session=${v}`),
  fc.constantFrom("dr_session=", "dr_session=%E0%A4%A", "dr_session=forged; dr_session=also-forged", "dr_session=" + "A".repeat(43), "a=b; c=d; dr_session=x", "=dr_session", "dr_session", "DR_SESSION=x"),
);
const FOREIGN_ORIGINS = ["https://evil.example", "null", "http://127.0.0.1", "http://localhost", "file://", "http://[::1]:1"];

// ---- answers ---------------------------------------------------------------------------------

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

class Violation extends Error {
  override name = "Violation";
}

function violated(what: string, a: Answer): never {
  throw new Violation(`${what}; got ${a.status} ${a.headers.get("content-type") ?? "(no content type)"}: ${a.text.slice(0, 300)}`);
}

// Internals an error body must never show (a 403 echoes the caller's own shop codes, so it is not checked).
const LEAK = /\bat \S+ \(|node_modules|\/work\/|\.tsx?:\d|SQLITE_|sqlite|postgres|\bselect\b.+\bfrom\b|syntax error|ECONN/i;

/** An RFC 9457 problem of one of the allowed statuses, with the headers its status requires. */
function expectProblem(a: Answer, allowed: ReadonlySet<number>, opts: { fieldErrors?: boolean; method?: string } = {}): Record<string, unknown> | undefined {
  if (!allowed.has(a.status)) violated(`status not one of ${[...allowed].join(", ")}`, a);
  if (a.status === 429 && !/^\d+$/.test(a.headers.get("retry-after") ?? "")) violated("429 without a Retry-After", a);
  if (a.status === 405 && a.headers.get("allow") !== "POST") violated("405 without Allow: POST", a);
  if (!/^application\/problem\+json\b/.test(a.headers.get("content-type") ?? "")) violated("not application/problem+json", a);
  if (opts.method === "HEAD") return undefined;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(a.text);
  } catch {
    violated("problem body is not JSON", a);
  }
  if (typeof body.type !== "string" || typeof body.title !== "string" || typeof body.detail !== "string" || body.status !== a.status) violated("problem body lacks type/title/status/detail", a);
  if (a.status !== 403 && LEAK.test(`${body.title} ${body.detail}`)) violated("problem body shows internals", a);
  if (a.status === 400 && opts.fieldErrors) {
    const errors = body.errors;
    if (!Array.isArray(errors) || errors.length === 0) violated("400 without errors", a);
    for (const e of errors as { field?: unknown; message?: unknown }[]) {
      if (typeof e.field !== "string" || typeof e.message !== "string" || e.message.length === 0) violated("400 errors entry without field and message", a);
    }
  }
  return body;
}

type Statuses = ReadonlySet<number>;
const S = (...codes: number[]): Statuses => new Set([...codes, 429]);
const union = (a: Statuses, b: Statuses): Statuses => new Set([...a, ...b]);

// ---- the run ---------------------------------------------------------------------------------

// Each property sends a fixed number of requests; on a loaded machine 600 of them can take longer
// than vitest's default minute, which is no finding: the time limit is per request (TIMEOUT_MS).
describe.each(backends)("fuzzing every route on $name", { timeout: 240_000 }, (backend) => {
  let env: ApiEnv;
  let cookie: string;
  let base: string;
  let requests = 0;
  let failures = 0;
  let started = 0;
  let propertyIndex = 0;
  const statusCounts = new Map<number, number>();
  const bodies401 = new Set<string>();
  const recordKeys: Record<Kind, string> = { chargeback: "", pre_arbitration: "" };

  beforeAll(async () => {
    // The shared environment throttles neither requests nor failed authentications (harness.ts,
    // SHARED_ENV_SETTINGS): most generated requests fail to authenticate, and behind a 429 they
    // would never reach validation, scope or the queries.
    env = await sharedApiEnv(backend);
    expect(env.env).toMatchObject({ RATE_LIMIT_PER_MINUTE: "0", AUTH_FAILURES_PER_MINUTE: "0" });
    base = env.server.url;
    await addUser(env.env, USER.email, USER.password, USER.access);
    cookie = await signIn(base, USER.email, USER.password);
    for (const kind of KINDS) recordKeys[kind] = Object.keys(publicRecord(env.fixture.records[kind][0], kind)).sort().join(",");
    console.log(`fuzz: ${backend.name}: seed ${SEED} (FUZZ_SEED=${SEED} replays this run)`);
    started = Date.now();
  });

  afterAll(async () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const spread = [...statusCounts].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(", ");
    console.log(`fuzz: ${backend.name}: ${requests} requests, ${failures} failures, ${seconds} s, seed ${SEED} (${spread})`);
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  /** One request with a deadline; a request that gets no answer in time fails the property. */
  async function send(path: string, init: RequestInit & { bytes?: Uint8Array<ArrayBuffer> } = {}): Promise<Answer> {
    requests++;
    const method = init.method ?? "GET";
    try {
      const res = await fetch(base + path, { ...init, body: init.bytes ?? init.body, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
      const text = await res.text();
      statusCounts.set(res.status, (statusCounts.get(res.status) ?? 0) + 1);
      if (res.status >= 500) throw new Violation(`server error ${res.status} to ${method} ${path.slice(0, 200)}: ${text.slice(0, 300)}`);
      return { status: res.status, headers: res.headers, text };
    } catch (err) {
      if (err instanceof Violation) throw err;
      const name = (err as Error).name;
      if (name === "TimeoutError" || name === "AbortError") throw new Violation(`no answer within ${TIMEOUT_MS} ms to ${method} ${path.slice(0, 200)}`);
      throw new Violation(`request failed (${(err as Error).message}; ${String((err as { cause?: unknown }).cause ?? "")}) for ${method} ${path.slice(0, 200)}`);
    }
  }

  /** Runs one property with this run's seed; a counterexample fails the test, after the others ran. */
  async function property<T>(name: string, arb: fc.Arbitrary<T>, numRuns: number, predicate: (value: T) => Promise<void>) {
    const seed = (SEED + propertyIndex++) >>> 0;
    const details = await fc.check(fc.asyncProperty(arb, predicate), { seed, numRuns, endOnFailure: false });
    if (details.failed) {
      failures++;
      const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      throw new Error(`${name} (seed ${seed}): ${cause}\n${fc.defaultReportMessage(details)}`);
    }
  }

  /** A 200 of a search: exactly the envelope, records with exactly their fields. */
  function expectEnvelope(a: Answer, kind: Kind, perPage = 1000): { content: Record<string, unknown>[]; totalPages: number; totalElements: number } {
    if (!/^application\/json\b/.test(a.headers.get("content-type") ?? "")) violated("200 not application/json", a);
    const body = JSON.parse(a.text);
    if (Object.keys(body).sort().join(",") !== "content,totalElements,totalPages") violated("not exactly the page envelope", a);
    if (!Array.isArray(body.content) || !Number.isInteger(body.totalElements) || !Number.isInteger(body.totalPages) || body.totalElements < 0) violated("malformed envelope", a);
    if (body.content.length > perPage) violated("more records than per_page", a);
    for (const rec of body.content) if (Object.keys(rec).sort().join(",") !== recordKeys[kind]) violated("record without exactly its fields", a);
    return body;
  }

  function expectSearchAnswer(a: Answer, kind: Kind, allowed: Statuses, method = "POST") {
    if (a.status === 200) {
      if (!allowed.has(200)) violated(`200 where only ${[...allowed].join(", ")} may answer`, a);
      return expectEnvelope(a, kind);
    }
    const problem = expectProblem(a, allowed, { fieldErrors: true, method });
    if (a.status === 401 && problem) {
      // The request id names the request; the rest of the body must be the same for every failure.
      const { request_id: requestId, ...rest } = JSON.parse(a.text) as { request_id?: string };
      if (!requestId) violated("a problem body without its request_id", a);
      bodies401.add(JSON.stringify(rest));
    }
    return undefined;
  }

  /** The search answer must equal the model's (docs/api.md, "Selection and order") for a valid request inside the caller's scope. */
  function expectModelAnswer(a: Answer, kind: Kind, req: ModelRequest, access: readonly string[]) {
    const outside = (req.shop_codes ?? []).some((s) => !access.includes(s));
    const expected = outside ? S(403) : S(200);
    const body = expectSearchAnswer(a, kind, expected);
    if (!body) return;
    const model = modelSearch(env.fixture.records[kind], req, access);
    if (body.totalElements !== model.totalElements || body.totalPages !== model.totalPages) {
      violated(`totals ${body.totalElements}/${body.totalPages}, the model says ${model.totalElements}/${model.totalPages} for ${JSON.stringify(req).slice(0, 300)}`, a);
    }
    expect(body.content).toEqual(model.content.map((r) => publicRecord(r, kind)));
  }

  type Auth =
    | { type: "none" }
    | { type: "junk"; shop?: string; nonce?: string; signature?: string }
    | { type: "wrong-password" | "unknown-shop" | "upper-signature" | "short-nonce" }
    | { type: "junk-cookie"; cookie: string; origin?: string };

  const junkAuth: fc.Arbitrary<Auth> = fc.oneof(
    fc.constant({ type: "none" as const }),
    fc.record({ type: fc.constant("junk" as const), shop: maybeHeader, nonce: maybeHeader, signature: fc.option(fc.oneof(headerValue, fc.stringMatching(/^[0-9a-f]{64}$/)), { nil: undefined }) }),
    fc.constantFrom("wrong-password", "unknown-shop", "upper-signature", "short-nonce").map((type) => ({ type }) as Auth),
    fc.record({ type: fc.constant("junk-cookie" as const), cookie: junkCookie, origin: fc.option(fc.constantFrom(...FOREIGN_ORIGINS), { nil: undefined }) }),
  );

  function junkAuthHeaders(auth: Auth): { headers: Record<string, string>; statuses: Statuses } {
    const { shop, password } = CREDENTIALS.wide;
    const nonce = newNonce();
    switch (auth.type) {
      case "none":
        return { headers: {}, statuses: S(401) };
      case "junk": {
        const headers: Record<string, string> = {};
        if (auth.shop !== undefined) headers["X-Shop-Code"] = auth.shop;
        if (auth.nonce !== undefined) headers["X-Nonce"] = auth.nonce;
        if (auth.signature !== undefined) headers["X-Signature"] = auth.signature;
        return { headers, statuses: S(401) };
      }
      case "wrong-password":
        return { headers: signedHeaders(shop, "not-the-password"), statuses: S(401) };
      case "unknown-shop":
        return { headers: signedHeaders("no-such-shop", password), statuses: S(401) };
      case "upper-signature":
        return { headers: { "X-Shop-Code": shop, "X-Nonce": nonce, "X-Signature": sign(nonce, password).toUpperCase() }, statuses: S(401) };
      case "short-nonce":
        return { headers: { "X-Shop-Code": shop, "X-Nonce": "short", "X-Signature": sign("short", password) }, statuses: S(401) };
      case "junk-cookie": {
        const headers: Record<string, string> = { Cookie: auth.cookie };
        if (auth.origin) headers.Origin = auth.origin;
        // A cookie request from another origin is refused before its session is looked up.
        return { headers, statuses: auth.origin ? S(401, 403) : S(401) };
      }
    }
  }

  function bodyInit(body: Body): { body?: string; bytes?: Uint8Array<ArrayBuffer> } {
    return body.bytes ? { bytes: body.bytes } : { body: body.text };
  }

  it("answers unauthenticated searches with hostile headers and bodies only as the error rules allow, never 200", async () => {
    const arb = fc.record({
      kind: fc.constantFrom(...KINDS),
      method: fc.oneof({ weight: 9, arbitrary: fc.constant("POST") }, { weight: 2, arbitrary: fc.constantFrom("GET", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD") }),
      contentType,
      auth: junkAuth,
      body: fc.constantFrom(...KINDS).chain(anyBody),
      extra: fc.record({ accept: maybeHeader, xff: maybeHeader, fetchSite: fc.option(fc.constantFrom("cross-site", "same-origin", "none", "same-site", "junk"), { nil: undefined }) }, { requiredKeys: [] }),
    });
    await property("unauthenticated searches", arb, runs(750), async ({ kind, method, contentType: ct, auth, body, extra }) => {
      const { headers, statuses } = junkAuthHeaders(auth);
      if (ct.value !== undefined) headers["Content-Type"] = ct.value;
      if (extra.accept !== undefined) headers.Accept = extra.accept;
      if (extra.xff !== undefined) headers["X-Forwarded-For"] = extra.xff;
      if (extra.fetchSite !== undefined) headers["Sec-Fetch-Site"] = extra.fetchSite;
      const hasBody = !["GET", "HEAD"].includes(method);
      // fetch labels a text body without a Content-Type as text/plain: refused all the same.
      let allowed = method !== "POST" ? S(405) : ct.verdict === "bad" ? S(415) : ct.verdict === "unknown" ? union(S(415), statuses) : statuses;
      if (method === "POST" && auth.type === "junk-cookie" && extra.fetchSite && ct.verdict !== "bad") allowed = union(allowed, S(403));
      const a = await send(`/api/${kind}`, { method, headers, ...(hasBody ? bodyInit(body) : {}) });
      expectSearchAnswer(a, kind, allowed, method);
    });
  });

  it("answers correctly signed searches with generated bodies: validation and scope are reached", async () => {
    const credential = fc.constantFrom(...(Object.keys(CREDENTIALS) as (keyof typeof CREDENTIALS)[]));
    const arb = fc.constantFrom(...KINDS).chain((kind) =>
      fc.record({ kind: fc.constant(kind), credential, body: anyBody(kind), charset: fc.constantFrom(...CONTENT_TYPES_OK), nonceLength: fc.constantFrom(16, 22, 64, 128) }),
    );
    await property("signed searches", arb, runs(1100), async ({ kind, credential: name, body, charset, nonceLength }) => {
      const cred = CREDENTIALS[name];
      const nonce = (newNonce() + newNonce() + "._~:-".repeat(30)).slice(0, nonceLength).padEnd(nonceLength, "n");
      const headers = { "Content-Type": charset, ...signedHeaders(cred.shop, cred.password, nonce) };
      const a = await send(`/api/${kind}`, { method: "POST", headers, ...bodyInit(body) });
      if (body.valid) expectModelAnswer(a, kind, body.valid, cred.access);
      // Authenticated, so never 401; anything else the body decides.
      else expectSearchAnswer(a, kind, S(200, 400, 403));
    });
  });

  it("answers signed extension requests (summaries, overview, worklist) with generated bodies: 200 of the right shape, 400 or 403", async () => {
    const credential = fc.constantFrom(...(Object.keys(CREDENTIALS) as (keyof typeof CREDENTIALS)[]));
    const dimension = fc.constantFrom("month", "file_date", "shop_code", "merchant_id", "card_type", "reason_code", "function_code", "documents", "case_stage", "nope", "");
    const value = (field: string) => fc.oneof({ weight: 3, arbitrary: field.startsWith("file_date") || field.startsWith("answer_by") ? validDate : fc.constant(undefined) }, { weight: 1, arbitrary: junkValue }, { weight: 1, arbitrary: anyText });
    const fieldsOf = (names: string[], extra: fc.Arbitrary<[string, unknown]>[] = []) =>
      fc
        .tuple(
          fc.array(fc.constantFrom(...names).chain((field) => value(field).map((v) => [field, v] as [string, unknown])), { maxLength: 5 }),
          fc.array(fc.oneof(...extra, fc.tuple(junkKey, junkValue)), { maxLength: 3 }),
        )
        .map(([a, b]) => ({ text: objectText([...a, ...b]) }) as Body);
    const shops = fc.subarray([...SHOPS, "nope"], { maxLength: 4 }).map((codes) => ["shop_codes", codes] as [string, unknown]);
    const groupBy = fc.array(dimension, { maxLength: 3 }).map((dims) => ["group_by", dims] as [string, unknown]);
    const kinds = fc.subarray(["chargeback", "pre_arbitration", "nope"]).map((k) => ["kinds", k] as [string, unknown]);
    const page = fc.oneof(fc.integer({ min: -1, max: 3 }), anyNumber).map((n) => ["page", n] as [string, unknown]);
    const ROUTES = {
      "/api/chargeback/summary": { body: fieldsOf(["file_date_from", "file_date_to", "merchant_id"], [shops, groupBy, groupBy]), keys: "groups,totalElements" },
      "/api/pre_arbitration/summary": { body: fieldsOf(["file_date_from", "file_date_to", "merchant_id"], [shops, groupBy, groupBy]), keys: "groups,totalElements" },
      "/api/overview": { body: fieldsOf(["file_date_from", "file_date_to", "file_date_from", "file_date_to"], [shops]), keys: "" },
      "/api/worklist": { body: fieldsOf(["answer_by_from", "answer_by_to"], [shops, kinds, page]), keys: "content,totalElements,totalPages" },
    } as const;
    const arb = fc.constantFrom(...(Object.keys(ROUTES) as (keyof typeof ROUTES)[])).chain((path) =>
      fc.record({ path: fc.constant(path), credential, body: fc.oneof({ weight: 4, arbitrary: ROUTES[path].body }, { weight: 1, arbitrary: rawBody.filter((b) => size(b) < MIB - 1024) }) }),
    );
    await property("signed extension requests", arb, runs(600), async ({ path, credential: name, body }) => {
      const cred = CREDENTIALS[name];
      const a = await send(path, { method: "POST", headers: { "Content-Type": "application/json", ...signedHeaders(cred.shop, cred.password) }, ...bodyInit(body) });
      if (a.status !== 200) {
        expectProblem(a, S(400, 403), { fieldErrors: true, method: "POST" });
        return;
      }
      if (!/^application\/json\b/.test(a.headers.get("content-type") ?? "")) violated("200 not application/json", a);
      const answer = JSON.parse(a.text) as Record<string, unknown>;
      const keys = ROUTES[path].keys;
      if (keys && Object.keys(answer).sort().join(",") !== keys) violated(`not exactly ${keys}`, a);
      if (!keys && !["period", "previous", "chargebacks", "by_reason", "excessive_chargebacks"].every((k) => k in answer)) violated("not an overview", a);
    });
  });

  it("answers the dashboard's cookie-authenticated searches, and refuses them from other origins", async () => {
    const arb = fc.constantFrom(...KINDS).chain((kind) =>
      fc.record({
        kind: fc.constant(kind),
        body: anyBody(kind),
        origin: fc.oneof({ weight: 3, arbitrary: fc.constant("self") }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...FOREIGN_ORIGINS) }),
        extraCookies: fc.option(fc.constantFrom("theme=dark", "a=b; c=%ZZ", "dr_session=second-one", "x=" + "y".repeat(500)), { nil: undefined }),
      }),
    );
    await property("cookie searches", arb, runs(250), async ({ kind, body, origin, extraCookies }) => {
      const headers: Record<string, string> = { "Content-Type": "application/json", Cookie: extraCookies ? `${cookie}; ${extraCookies}` : cookie };
      if (origin === "self") headers.Origin = base;
      else if (origin) headers.Origin = origin;
      const a = await send(`/api/${kind}`, { method: "POST", headers, ...bodyInit(body) });
      if (origin && origin !== "self") return void expectSearchAnswer(a, kind, S(403));
      if (body.valid) expectModelAnswer(a, kind, body.valid, USER.access);
      else expectSearchAnswer(a, kind, S(200, 400, 403));
    });
  });

  // ---- export ----

  interface ExportQuery {
    query: string;
    valid?: ModelRequest;
  }

  const urlIdentifier = (pool: readonly string[]) => identifier(pool).filter((s) => !/[\s,]/.test(s));
  const validExportQuery = (kind: Kind): fc.Arbitrary<ExportQuery> => {
    const entries = Object.entries(EXPORT_KEYS[kind]).map(([key, field]) => {
      const value: fc.Arbitrary<unknown> = LIST_FIELDS[kind].includes(field)
        ? fc.uniqueArray(urlIdentifier(POOLS[field]), { minLength: 1, maxLength: 8 })
        : field === "merchant_id" || field === "parent_merchant_id"
          ? identifier(POOLS[field])
          : validValue(kind, field);
      return [key, fc.option(value, { nil: undefined, freq: 2 })] as const;
    });
    return fc.record(Object.fromEntries(entries)).map((view) => {
      const params = new URLSearchParams();
      const req: Record<string, unknown> = {};
      const from = view.from as string | undefined;
      const to = view.to as string | undefined;
      if (from && to && from > to) [view.from, view.to] = [to, from];
      for (const [key, value] of Object.entries(view)) {
        if (value === undefined) continue;
        params.set(key, Array.isArray(value) ? value.join(",") : String(value));
        req[EXPORT_KEYS[kind][key]] = value;
      }
      return { query: params.toString(), valid: req as ModelRequest };
    });
  };
  const junkExportQuery = (kind: Kind): fc.Arbitrary<ExportQuery> => {
    const key = fc.oneof(fc.constantFrom(...Object.keys(EXPORT_KEYS[kind]), "page", "size", "open", "shops[]", "Shops", "payments", "txns", "parent", "__proto__", "constructor", ""), shortText);
    const value = fc.oneof(shortText, anyText.filter((s) => s.length < 2000), fc.constantFrom("2026-02-30", "ID", "asc", "FILE_DATE", "a,,b", ",", "a b", "shop-a,ghost-shop", "x".repeat(101)));
    const encoded = fc.array(fc.tuple(key, value), { maxLength: 6 }).map((pairs) => new URLSearchParams(pairs).toString());
    const raw = fc.array(fc.oneof(fc.constantFrom("%", "%ZZ", "%E0%A4%A", "%00", "+", "&&", "=", "a=b=c", "shops", "shops=", "from=2026-01-05&from=2026-01-06", "arns=%C0%AF", "merchant=%FF%FE"), fc.stringMatching(/^[A-Za-z0-9%=&+,._~-]{0,40}$/)), { maxLength: 6 }).map((parts) => parts.join("&"));
    return fc.oneof(encoded, raw).filter((q) => q.length < 6000).map((query) => ({ query }));
  };

  it("answers CSV exports with generated query strings: 200 CSV inside the user's scope, or a problem", async () => {
    const arb = fc.constantFrom(...KINDS).chain((kind) =>
      fc.record({
        kind: fc.constant(kind),
        q: fc.oneof(validExportQuery(kind), junkExportQuery(kind)),
        who: fc.oneof({ weight: 4, arbitrary: fc.constant<string | undefined>(undefined) }, { weight: 2, arbitrary: junkCookie }, { weight: 1, arbitrary: fc.constant("none") }),
        fetchSite: fc.option(fc.constantFrom("cross-site", "same-origin", "none", "junk"), { nil: undefined, freq: 5 }),
        badKind: fc.option(fc.constantFrom("chargebacks", "CHARGEBACK", "pre-arbitration", "summary", "%00", "x", "__proto__", "constructor"), { nil: undefined, freq: 12 }),
      }),
    );
    await property("exports", arb, runs(450), async ({ kind, q, who, fetchSite, badKind }) => {
      const headers: Record<string, string> = {};
      const session = who === undefined;
      if (session) headers.Cookie = cookie;
      else if (who !== "none") headers.Cookie = who;
      if (fetchSite) headers["Sec-Fetch-Site"] = fetchSite;
      const a = await send(`/api/export/${badKind ?? kind}${q.query ? `?${q.query}` : ""}`, { headers });
      // Kind, then origin, then session, then the query, then scope.
      let allowed: Statuses;
      if (badKind) allowed = S(400);
      else if (fetchSite === "cross-site") allowed = S(403);
      else if (!session) allowed = S(401);
      else if (q.valid) allowed = (q.valid.shop_codes ?? []).some((s) => !USER.access.includes(s)) ? S(403) : S(200);
      else allowed = S(200, 400, 403);
      if (a.status !== 200) return void expectProblem(a, allowed);
      if (!allowed.has(200)) violated("an export answered 200", a);
      if (!/^text\/csv\b/.test(a.headers.get("content-type") ?? "")) violated("export not text/csv", a);
      const rows = parseCsv(a.text, { bom: true, relax_column_count: false }) as string[][];
      if (rows[0]?.[0] !== "shop_code") violated("export without its header row", a);
      for (const row of rows.slice(1)) if (!USER.access.includes(row[0])) violated(`export row of shop ${row[0]} outside the user's access list`, a);
      if (q.valid) {
        const expected = modelSearch(env.fixture.records[kind], { ...q.valid, page: 0, per_page: 1e9 }, USER.access).totalElements;
        if (rows.length - 1 !== expected) violated(`export of ${rows.length - 1} rows, the model says ${expected}`, a);
      }
    });
  });

  // ---- the rest: health, the OpenAPI document, the pages ----

  const junkQuery = fc.oneof(
    fc.constant(""),
    fc.webQueryParameters(),
    fc.array(fc.tuple(shortText, shortText), { maxLength: 5 }).map((pairs) => new URLSearchParams(pairs).toString()),
    fc.constantFrom(
      "next=//evil.example", "next=/\\evil.example", "next=https://evil.example/", "next=%2F%2Fevil.example", "next=/api/chargeback", "next=/login", "next=javascript:alert(1)",
      "next=/chargebacks%0d%0aSet-Cookie:x=y", "reason=expired", "reason=signed-out", "reason=__proto__", "reason=constructor", "page=abc", "size=5", "sort=NAME", "from=2026-02-30",
      "open=2026-01-05~zz~ARN-1", "open=" + "x".repeat(3000), "shops=" + Array.from({ length: 400 }, (_, i) => `s${i}`).join(","), "%", "%ZZ", "%E0%A4%A", "a=%00", "&&&", "=", "_rsc=1",
    ),
  );
  const pageCookie = fc.oneof({ weight: 2, arbitrary: fc.constant("session") }, { weight: 2, arbitrary: fc.constant("none") }, { weight: 1, arbitrary: junkCookie });
  const nextHeaders = fc.option(
    fc.constantFrom<Record<string, string>>(
      { RSC: "1" },
      { RSC: "1", "Next-Router-Prefetch": "1" },
      { RSC: "1", "Next-Router-State-Tree": "junk" },
      { RSC: "1", "Next-Router-State-Tree": "%5B%22%22%5D" },
      { "Next-Url": "/chargebacks" },
      { Accept: "text/x-component" },
      { "Accept-Language": "zz;q=junk" },
    ),
    { nil: undefined, freq: 3 },
  );

  it("answers /api/health and /api/openapi.json to anything with their documents", async () => {
    const arb = fc.record({ path: fc.constantFrom("/api/health", "/api/openapi.json"), query: junkQuery, cookie: fc.option(junkCookie, { nil: undefined }), accept: maybeHeader });
    await property("health and openapi", arb, runs(150), async ({ path, query, cookie: c, accept }) => {
      const headers: Record<string, string> = {};
      if (c !== undefined) headers.Cookie = c;
      if (accept !== undefined) headers.Accept = accept;
      const a = await send(`${path}${query ? `?${query}` : ""}`, { headers });
      if (a.status === 429 && a.headers.get("retry-after")) return;
      if (a.status !== 200 || !/^application\/json\b/.test(a.headers.get("content-type") ?? "")) violated(`${path} did not answer 200 JSON`, a);
      const doc = JSON.parse(a.text);
      if (path === "/api/health" ? doc.status !== "ok" : doc.openapi !== "3.1.0") violated(`${path} did not answer its document`, a);
    });
  });

  it("renders the pages with junk query strings and cookies, redirecting only to this site", async () => {
    const arb = fc.record({ path: fc.constantFrom(...PAGES), query: junkQuery, who: pageCookie, next: nextHeaders });
    await property("pages", arb, runs(300), async ({ path, query, who, next }) => {
      const headers: Record<string, string> = { ...next };
      if (who === "session") headers.Cookie = cookie;
      else if (who !== "none") headers.Cookie = who;
      const a = await send(`${path}${query ? `?${query}` : ""}`, { headers });
      if (a.status === 429 && a.headers.get("retry-after")) return;
      if (a.status === 200) {
        if (!/^text\/(html|x-component)\b/.test(a.headers.get("content-type") ?? "")) violated("a page that is not HTML", a);
        return;
      }
      if (![303, 307, 308].includes(a.status)) violated("a page answered neither 200 nor a redirect", a);
      const location = a.headers.get("location") ?? "";
      const target = new URL(location, base);
      if (target.origin !== base || location.startsWith("//") || location.startsWith("/\\")) violated(`a redirect off this site: ${location}`, a);
      // Without a session the dashboard pages send the browser to the sign-in page only (or, for
      // Next's own RSC requests, back to the same page with its cache-busting _rsc parameter).
      const rscRetry = next?.RSC === "1" && target.pathname === path && target.searchParams.has("_rsc");
      if (who !== "session" && ["/chargebacks", "/pre-arbitration"].includes(path) && target.pathname !== "/login" && !rscRetry) violated(`redirected to ${location}`, a);
    });
  });

  it("refuses bodies over 1 MiB with 413, whatever they claim, and takes one of exactly 1 MiB", async () => {
    const cred = CREDENTIALS.wide;
    const exact = "{}" + " ".repeat(MIB - 2);
    // Built per kind: each signed case needs a nonce of its own.
    const cases = (): { name: string; headers: Record<string, string>; body: Buffer; chunked?: boolean; declared?: string; status: number }[] => [
      { name: "1 MiB + 1, unsigned", headers: {}, body: Buffer.from("{}" + " ".repeat(MIB - 1)), status: 413 },
      { name: "2 MiB, signed", headers: signedHeaders(cred.shop, cred.password), body: Buffer.from(JSON.stringify({ acq_ref_nrs: ["x"], pad: "y".repeat(2 * MIB) })), status: 413 },
      { name: "1.5 MiB chunked, signed", headers: signedHeaders(cred.shop, cred.password), body: Buffer.alloc(1.5 * MIB, 32), chunked: true, status: 413 },
      { name: "a Content-Length of 10 GB over a short body", headers: signedHeaders(cred.shop, cred.password), body: Buffer.from("{}"), declared: String(10 * 1024 ** 3), status: 413 },
      { name: "exactly 1 MiB, signed", headers: signedHeaders(cred.shop, cred.password), body: Buffer.from(exact), status: 200 },
      { name: "exactly 1 MiB, chunked, signed", headers: signedHeaders(cred.shop, cred.password), body: Buffer.from(exact), chunked: true, status: 200 },
    ];
    for (const kind of KINDS) {
      for (const c of cases()) {
        const a = await rawPost(`/api/${kind}`, { "Content-Type": "application/json", ...c.headers }, c.body, c);
        if (c.status === 200) expectSearchAnswer(a, kind, S(200));
        else expectProblem(a, S(c.status));
      }
    }
  });

  /** A POST on its own connection, so a refused upload cannot disturb the next request. */
  function rawPost(path: string, headers: Record<string, string>, body: Buffer, opts: { chunked?: boolean; declared?: string; name: string }): Promise<Answer> {
    requests++;
    return new Promise((resolve, reject) => {
      const url = new URL(base + path);
      const reqHeaders: Record<string, string> = { ...headers };
      if (!opts.chunked) reqHeaders["Content-Length"] = opts.declared ?? String(body.byteLength);
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: reqHeaders, agent: false, timeout: TIMEOUT_MS }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => {
          statusCounts.set(res.statusCode ?? 0, (statusCounts.get(res.statusCode ?? 0) ?? 0) + 1);
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
          resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString("utf8") });
          req.destroy();
        });
      });
      req.on("timeout", () => {
        req.destroy();
        reject(new Violation(`no answer within ${TIMEOUT_MS} ms to ${opts.name}`));
      });
      // The server may answer and close before the whole upload is written: only a missing answer
      // counts, and an answer has as long to arrive as any request (TIMEOUT_MS).
      req.on("error", (err) => setTimeout(() => reject(new Violation(`${opts.name}: ${err.message}`)), TIMEOUT_MS));
      if (opts.declared) req.end(body);
      else {
        for (let i = 0; i < body.byteLength; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024));
        req.end();
      }
    });
  }

  it("gave every authentication failure one and the same body", () => {
    expect(bodies401.size).toBe(1);
  });

  it("is still running and healthy afterwards", async () => {
    const a = await send("/api/health");
    expect(a.status).toBe(200);
    expect(JSON.parse(a.text)).toEqual({ status: "ok" });
    expect(env.server.alive()).toBe(true);
    expect(env.server.output()).not.toMatch(/unexpected error in API request|export failed mid-stream|uncaught|unhandled/i);
    expect(requests).toBeGreaterThan(runs(2900));
  });
});
