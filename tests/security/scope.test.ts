import { parse as parseCsv } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACQ_REFS, CREDENTIALS, type Kind, MERCHANTS, type ModelRecord, type ModelRequest, modelSearch, ORDERS, PARENTS, publicRecord, SHOPS, TRANSACTION_IDS } from "../api/fixture";
import { type ApiEnv, sharedApiEnv, signedHeaders } from "../api/harness";
import { addShop, addUser, signIn } from "../helpers/accounts";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { DEFAULT_SORT } from "@/lib/url-state/dispute-view";

/**
 * Scope isolation (docs/api.md, "Scope"): shop credentials and dashboard users with different access lists
 * (overlapping, a single shop, shops without records, case twins) try every way in: signed and
 * cookie-authenticated searches with and without shop_codes, filters naming other shops'
 * records, every sort, per_page 1000, walking to the last page and beyond, the CSV export and the
 * pages' server rendering. No answer may hold a record of a shop outside the caller's list, the
 * totals must equal an independent count, and naming an outside shop answers 403.
 */

const KINDS: Kind[] = ["chargeback", "pre_arbitration"];
const SORT_KEYS: Record<Kind, string[]> = {
  chargeback: ["ID", "SHOP_CODE", "MERCHANT_ID", "ACQ_REF_NR", "PAYMENT_ORDER_NR", "FILE_DATE"],
  pre_arbitration: ["ID", "SHOP_CODE", "MERCHANT_ID", "ACQ_REF_NR", "PAYMENT_ORDER_NR"],
};

type Caller = { name: string; access: readonly string[] } & ({ type: "shop"; shop: string; password: string } | { type: "user"; email: string; password: string });

/** The harness's three credentials (wide: every shop; narrow: two; self: one), and more. */
const SHOP_CALLERS: Caller[] = [
  ...Object.entries(CREDENTIALS).map(([name, c]) => ({ name: `shop ${name}`, type: "shop" as const, shop: c.shop, password: c.password, access: c.access })),
  // The case twin of shop-a, alone.
  { name: "shop Shop-A", type: "shop", shop: "Shop-A", password: "case-twin-pass-1", access: ["Shop-A"] },
  // Overlaps with the users below, and names a shop that has no records.
  { name: "shop alpha", type: "shop", shop: "alpha", password: "alpha-password-1", access: ["alpha", "Älpha", "ghost-shop"] },
  // A shop with no records at all.
  { name: "shop ghost-shop", type: "shop", shop: "ghost-shop", password: "ghost-password-1", access: ["ghost-shop"] },
  // Overlaps with "self" (zz), plus a shop that exists nowhere.
  { name: "shop SHOP-B", type: "shop", shop: "SHOP-B", password: "shop-b-password", access: ["SHOP-B", "zz", "nobody"] },
];
const USER_CALLERS: Caller[] = [
  { name: "user pair", type: "user", email: "pair@scope.test", password: "pair-password-1", access: ["Zeta", "shop_b"] },
  { name: "user single", type: "user", email: "single@scope.test", password: "single-password", access: ["Älpha"] },
  { name: "user ghost", type: "user", email: "ghost@scope.test", password: "ghost-password-2", access: ["ghost-shop", "nobody"] },
  { name: "user mixed", type: "user", email: "mixed@scope.test", password: "mixed-password-1", access: ["Shop-A", "zz", "ghost-shop"] },
  { name: "user most", type: "user", email: "most@scope.test", password: "most-password-1", access: SHOPS.filter((s) => s !== "shop-a") },
];
const CALLERS = [...SHOP_CALLERS, ...USER_CALLERS];

/** Every shop code anyone names, and near misses of them: case, spaces, Unicode normalisation. */
const ALL_SHOPS = [
  ...SHOPS, "ghost-shop", "nobody", "SHOP-A", "shop-A", "ZETA", "zeta", "ZZ", "Zz", "zz ", " zz", "A\u0308lpha", "ALPHA", "shop_B", "Shop_b", "shop-b", "",
].filter((s) => s !== "");
const outsideOf = (access: readonly string[]) => ALL_SHOPS.filter((s) => !access.includes(s));

/** Canonical JSON of a record, whatever the order of its fields. */
const canon = (rec: Record<string, unknown>) => JSON.stringify(Object.keys(rec).sort().map((k) => [k, rec[k]]));

describe.each(backends)("scope isolation on $name", (backend) => {
  let env: ApiEnv;
  const cookies = new Map<string, string>();
  /** the fixture's record behind each record the API can return (all of them differ) */
  const byCanon: Record<Kind, Map<string, ModelRecord>> = { chargeback: new Map(), pre_arbitration: new Map() };

  beforeAll(async () => {
    env = await sharedApiEnv(backend);
    for (const kind of KINDS) {
      for (const rec of env.fixture.records[kind]) byCanon[kind].set(canon(publicRecord(rec, kind)), rec);
      expect(byCanon[kind].size).toBe(env.fixture.records[kind].length);
    }
    // The harness made its own three credentials; the admin command makes the others.
    const made = new Set<string>(Object.values(CREDENTIALS).map((c) => c.shop));
    for (const c of SHOP_CALLERS) if (c.type === "shop" && !made.has(c.shop)) await addShop(env.env, c.shop, c.password, c.access);
    for (const c of USER_CALLERS) {
      if (c.type !== "user") continue;
      await addUser(env.env, c.email, c.password, c.access);
      cookies.set(c.name, await signIn(env.server.url, c.email, c.password));
    }
  });

  afterAll(async () => {
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  /** A search as the caller makes it: signed headers for a shop, the session cookie for a user. */
  function search(caller: Caller, kind: Kind, body: unknown): Promise<Response> {
    const headers: Record<string, string> = { "Content-Type": "application/json" };
    if (caller.type === "shop") Object.assign(headers, signedHeaders(caller.shop, caller.password));
    else Object.assign(headers, { Cookie: cookies.get(caller.name)!, Origin: env.server.url });
    return fetch(`${env.server.url}/api/${kind}`, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  }

  const inScope = (kind: Kind, shops: readonly string[]) => env.fixture.records[kind].filter((r) => shops.includes(r.__shop));

  /**
   * A 200 whose every record belongs to the caller's scope, equal record for record to the model
   * of docs/api.md, "Selection and order" inside that scope, with its totals.
   */
  async function expectScoped(res: Response, caller: Caller, kind: Kind, req: ModelRequest) {
    expect(res.status, `${caller.name} ${kind} ${JSON.stringify(req)}`).toBe(200);
    const body = (await res.json()) as { content: Record<string, unknown>[]; totalElements: number; totalPages: number };
    for (const rec of body.content) {
      const source = byCanon[kind].get(canon(rec));
      expect(source, "a record the fixture does not hold").toBeDefined();
      expect(caller.access, `${caller.name} got a record of ${source!.__shop}`).toContain(source!.__shop);
    }
    const model = modelSearch(env.fixture.records[kind], req, caller.access);
    expect(body.totalElements).toBe(model.totalElements);
    expect(body.totalPages).toBe(model.totalPages);
    expect(body.content.map(canon)).toEqual(model.content.map((r) => canon(publicRecord(r, kind))));
    return body;
  }

  async function expect403(res: Response, named: string) {
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    const body = await res.json();
    expect(body).toMatchObject({ status: 403, type: expect.any(String), title: expect.any(String) });
    expect(body.detail).toContain(named);
    expect(body).not.toHaveProperty("content");
  }

  describe.each(CALLERS)("$name", (caller) => {
    it("sees exactly its scope without shop_codes, in every order, at per_page 1000", async () => {
      for (const kind of KINDS) {
        const expected = inScope(kind, caller.access).length;
        for (const sortKey of SORT_KEYS[kind]) {
          for (const sortOrder of ["asc", "desc"] as const) {
            const req = { sortKey, sortOrder, per_page: 1000 };
            const body = await expectScoped(await search(caller, kind, req), caller, kind, req);
            // The independent count: the fixture's records of the caller's shops.
            expect(body.totalElements).toBe(expected);
            expect(body.content).toHaveLength(expected);
          }
        }
        // null and [] mean "no filter": still the scope, never more.
        for (const shop_codes of [null, []]) {
          const body = await expectScoped(await search(caller, kind, { shop_codes, per_page: 1000 }), caller, kind, { per_page: 1000 });
          expect(body.totalElements).toBe(expected);
        }
      }
    });

    it("walks every page to the last and beyond without meeting another shop's record", async () => {
      for (const kind of KINDS) {
        const expected = inScope(kind, caller.access);
        for (const [sortKey, sortOrder, per_page] of [["ID", "asc", 10], ["SHOP_CODE", "desc", 10], ["PAYMENT_ORDER_NR", "asc", 37]] as const) {
          const seen: string[] = [];
          let totalPages = 0;
          for (let page = 0; ; page++) {
            const req = { sortKey, sortOrder, per_page, page };
            const body = await expectScoped(await search(caller, kind, req), caller, kind, req);
            totalPages = body.totalPages;
            expect(body.totalElements).toBe(expected.length);
            if (body.content.length === 0) {
              expect(page).toBe(totalPages);
              break;
            }
            seen.push(...body.content.map(canon));
          }
          expect(seen).toHaveLength(expected.length);
          expect(new Set(seen)).toEqual(new Set(expected.map((r) => canon(publicRecord(r, kind)))));
          // Far beyond the last page: nothing, with the same totals.
          const far = { sortKey, sortOrder, per_page, page: 1_000_000 };
          const body = await expectScoped(await search(caller, kind, far), caller, kind, far);
          expect(body).toMatchObject({ content: [], totalPages, totalElements: expected.length });
        }
      }
    });

    it("narrows to the shops it names inside its scope, and answers 403 to any shop outside", async () => {
      for (const kind of KINDS) {
        // Each shop of the list alone, and the whole list.
        for (const shop_codes of [...caller.access.map((s) => [s]), [...caller.access]]) {
          const req = { shop_codes, per_page: 1000 };
          const body = await expectScoped(await search(caller, kind, req), caller, kind, req);
          expect(body.totalElements).toBe(inScope(kind, shop_codes).length);
        }
        for (const outside of outsideOf(caller.access)) {
          // Alone, beside shops of the list, and with filters and paging that would otherwise pass.
          await expect403(await search(caller, kind, { shop_codes: [outside] }), outside);
          await expect403(await search(caller, kind, { shop_codes: [...caller.access, outside] }), outside);
          await expect403(await search(caller, kind, { shop_codes: [outside, caller.access[0]], acq_ref_nrs: [...ACQ_REFS], per_page: 1000, sortKey: "SHOP_CODE", page: 0 }), outside);
        }
      }
    });

    it("cannot widen its scope with any other filter", async () => {
      const everyPaymentId = (kind: Kind) => [...new Set(env.fixture.records[kind].map((r) => String(r.payment_id)))];
      const filters: Record<Kind, ModelRequest[]> = {
        chargeback: [
          { acq_ref_nrs: [...ACQ_REFS] },
          { payment_order_nrs: [...ORDERS] },
          { transaction_ids: [...TRANSACTION_IDS] },
          ...MERCHANTS.map((merchant_id) => ({ merchant_id })),
          ...PARENTS.map((parent_merchant_id) => ({ parent_merchant_id })),
          { file_date_from: "0001-01-01", file_date_to: "9999-12-31" },
          // Other shops' records, named one by one.
          { acq_ref_nrs: [...new Set(env.fixture.records.chargeback.filter((r) => !caller.access.includes(r.__shop)).map((r) => String(r.acq_ref_nr)))] },
          { payment_order_nrs: [...ORDERS], acq_ref_nrs: [...ACQ_REFS], transaction_ids: [...TRANSACTION_IDS], sortKey: "SHOP_CODE", sortOrder: "desc" },
        ],
        pre_arbitration: [
          { acq_ref_nrs: [...ACQ_REFS] },
          { payment_order_nrs: [...ORDERS] },
          { payment_ids: everyPaymentId("pre_arbitration").slice(0, 1000) },
          { payment_ids: env.fixture.records.pre_arbitration.filter((r) => !caller.access.includes(r.__shop)).map((r) => String(r.payment_id)) },
          ...MERCHANTS.map((merchant_id) => ({ merchant_id })),
          { file_date_from: "0001-01-01", file_date_to: "9999-12-31", sortKey: "PAYMENT_ORDER_NR", sortOrder: "desc" },
        ],
      };
      for (const kind of KINDS) {
        for (const filter of filters[kind]) {
          const req = { ...filter, per_page: 1000 };
          await expectScoped(await search(caller, kind, req), caller, kind, req);
        }
      }
    });
  });

  // ---- the dashboard's other ways in ----

  function exportCsv(caller: Caller, kind: Kind, query: string, headers: Record<string, string> = {}) {
    const cookie = cookies.get(caller.name);
    return fetch(`${env.server.url}/api/export/${kind}${query ? `?${query}` : ""}`, {
      headers: { ...(cookie ? { Cookie: cookie } : {}), ...headers },
      signal: AbortSignal.timeout(30_000),
    });
  }

  /** The export's rows as records keyed by column, in file order. */
  async function csvRows(res: Response): Promise<Record<string, string>[]> {
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    const rows = parseCsv(await res.text(), { bom: true }) as string[][];
    const [header, ...data] = rows;
    expect(header[0]).toBe("shop_code");
    return data.map((row) => Object.fromEntries(header.map((name, i) => [name, row[i]])));
  }

  /** An export must hold exactly the model's selection inside the user's scope, in its order. */
  async function expectScopedExport(caller: Caller, kind: Kind, query: string, req: ModelRequest) {
    const rows = await csvRows(await exportCsv(caller, kind, query));
    for (const row of rows) expect(caller.access, `${caller.name} exported a record of ${row.shop_code}`).toContain(row.shop_code);
    // Without sort and dir in the query, the grid's own order (DEFAULT_SORT), as its link leaves it out.
    const model = modelSearch(env.fixture.records[kind], { sortKey: DEFAULT_SORT[kind].sort, sortOrder: DEFAULT_SORT[kind].dir, ...req, per_page: 1_000_000 }, caller.access);
    expect(rows.length).toBe(model.totalElements);
    const key = (shop: string, r: Record<string, unknown>) => [shop, r.payment_id, r.acq_ref_nr, r.file_date, r.card].join("|");
    expect(rows.map((r) => key(r.shop_code, r))).toEqual(model.content.map((r) => key(r.__shop, r)));
    return rows;
  }

  describe.each(USER_CALLERS)("$name in the dashboard", (caller) => {
    it("exports exactly its scope as CSV, in every order and with every filter", async () => {
      for (const kind of KINDS) {
        const rows = await expectScopedExport(caller, kind, "", {});
        expect(rows.length).toBe(inScope(kind, caller.access).length);
        for (const sortKey of SORT_KEYS[kind]) {
          for (const sortOrder of ["asc", "desc"] as const) {
            await expectScopedExport(caller, kind, new URLSearchParams({ sort: sortKey, dir: sortOrder }).toString(), { sortKey, sortOrder });
          }
        }
        for (const shop of caller.access) {
          const rows = await expectScopedExport(caller, kind, `shops=${encodeURIComponent(shop)}`, { shop_codes: [shop] });
          expect(rows.length).toBe(inScope(kind, [shop]).length);
        }
        const everyArn = ACQ_REFS.join(",");
        await expectScopedExport(caller, kind, new URLSearchParams({ arns: everyArn, orders: ORDERS.join(",") }).toString(), { acq_ref_nrs: [...ACQ_REFS], payment_order_nrs: [...ORDERS] });
        for (const merchant_id of MERCHANTS) await expectScopedExport(caller, kind, new URLSearchParams({ merchant: merchant_id }).toString(), { merchant_id });
      }
    });

    it("answers 403 to an export naming a shop outside its list, and 401 to a shop's signature", async () => {
      for (const kind of KINDS) {
        // A list item of the URL holds no spaces (those are 400 there, before scope).
        for (const outside of outsideOf(caller.access).filter((s) => !/\s/.test(s))) {
          await expect403(await exportCsv(caller, kind, `shops=${encodeURIComponent(outside)}`), outside);
          await expect403(await exportCsv(caller, kind, `shops=${encodeURIComponent([...caller.access, outside].join(","))}&sort=SHOP_CODE`), outside);
        }
        // The export is for signed-in users only: a shop's signed headers are no way in.
        const signed = await fetch(`${env.server.url}/api/export/${kind}`, { headers: signedHeaders(CREDENTIALS.wide.shop, CREDENTIALS.wide.password) });
        expect(signed.status).toBe(401);
        await signed.arrayBuffer();
      }
    });

    it("renders the dashboard pages with its own shops only", async () => {
      const outside = outsideOf(caller.access);
      const records = [...env.fixture.records.chargeback, ...env.fixture.records.pre_arbitration];
      const own = new Set(records.filter((r) => caller.access.includes(r.__shop)).map((r) => String(r.payment_id)));
      const outsidePaymentIds = new Set(records.map((r) => String(r.payment_id)).filter((id) => !own.has(id)));
      for (const path of ["/chargebacks", "/pre-arbitration", `/chargebacks?shops=${encodeURIComponent(outside.join(","))}`, `/pre-arbitration?shops=${encodeURIComponent(outside[0])}&page=2`]) {
        for (const rsc of [false, true]) {
          const get = (url: string) =>
            fetch(url, { headers: { Cookie: cookies.get(caller.name)!, ...(rsc ? { RSC: "1" } : {}) }, redirect: "manual", signal: AbortSignal.timeout(30_000) });
          let res = await get(`${env.server.url}${path}`);
          // An RSC request first gets Next's cache-busting redirect to the same page with _rsc=<hash>.
          if (rsc && res.status === 307) {
            const location = new URL(res.headers.get("location")!, env.server.url);
            expect(location.origin + location.pathname).toBe(env.server.url + path.replace(/\?.*$/, ""));
            await res.arrayBuffer();
            res = await get(location.toString());
          }
          const text = await res.text();
          expect(res.status, `${path} rsc=${rsc}`).toBe(200);
          // The flight data as the browser reassembles it, or the RSC answer itself.
          const flight = rsc ? text : [...text.matchAll(/self\.__next_f\.push\(\[1,("(?:[^"\\]|\\.)*")\]\)/g)].map((m) => JSON.parse(m[1]) as string).join("");
          // The access list as the header's `access` or a page's `shops` (React writes one array
          // once and refers to it elsewhere); the shop directory's entries are objects.
          const lists = [...flight.matchAll(/"(?:access|shops)":(\[[^\]{]*\])/g)].map((m) => JSON.parse(m[1]));
          expect(lists.length, `${path}: the page names the user's access list`).toBeGreaterThan(0);
          for (const list of lists) expect(list).toEqual(caller.access);
          for (const shop of outside) expect(flight, `${path} names ${shop}`).not.toContain(JSON.stringify(shop));
          // No payment id of another shop's record (the ids PAY-<n> and PA-<n> of the fixture).
          for (const m of flight.matchAll(/"(PAY?-[^"]*)"/g)) expect(outsidePaymentIds.has(m[1]), `${path} shows ${m[1]}`).toBe(false);
          if (!rsc) {
            const shown = /shops: (?:<!-- -->)?([^<]*)</.exec(text)?.[1];
            const list = caller.access.length > 4 ? `${caller.access.slice(0, 4).join(", ")} +${caller.access.length - 4} more` : caller.access.join(", ");
            expect(shown).toBe(list);
          }
        }
      }
    });
  });
});
