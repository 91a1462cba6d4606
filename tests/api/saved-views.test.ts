import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addUser, signIn } from "../helpers/accounts";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { CREDENTIALS } from "./fixture";
import { type ApiEnv, setupApiEnv, signedHeaders } from "./harness";

/**
 * Saved views (docs/api.md, "Saved views") against `next start` on each backend: a signed-in
 * user's own views, created, listed, renamed, made default, deleted; names unique per user
 * regardless of case; the limits; nothing of one user's views visible to or changeable by
 * another; only this site's pages with a session cookie may use them; and they outlive the
 * session they were made in.
 */

interface View {
  id: number;
  name: string;
  page: string;
  query: string;
  columns: Record<string, boolean> | null;
  is_default: boolean;
  created_at: string;
  updated_at: string;
}

const ALICE = { email: "alice@example.test", password: "alice-password", access: ["Zeta"] };
const BOB = { email: "bob@example.test", password: "bob-password-1", access: ["Zeta", "shop_b"] };
const CAROL = { email: "carol@example.test", password: "carol-password", access: ["zz"] };

const decodeEntities = (text: string) => text.replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** Signs out as the header's "Sign out" button does without JavaScript: posts its form back. */
async function signOut(baseUrl: string, cookie: string): Promise<void> {
  const page = await fetch(`${baseUrl}/worklist`, { headers: { Cookie: cookie } });
  const html = await page.text();
  const form = [...html.matchAll(/<form[^>]*>([\s\S]*?)<\/form>/g)].map((m) => m[1]).find((f) => f.includes("Sign out"));
  if (!form) throw new Error(`no sign-out form on /worklist (${page.status})`);
  const data = new FormData();
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)"(?: value="([^"]*)")?\/>/g)) data.append(decodeEntities(m[1]), decodeEntities(m[2] ?? ""));
  const res = await fetch(`${baseUrl}/worklist`, { method: "POST", body: data, redirect: "manual", headers: { Cookie: cookie, Origin: baseUrl } });
  await res.arrayBuffer();
  if (res.status !== 303) throw new Error(`sign-out failed: ${res.status}`);
}

describe.each(backends)("saved views on $name", (backend) => {
  let env: ApiEnv;
  const cookies: Record<string, string> = {};

  const call = (route: string, opts: { method?: string; body?: unknown; cookie?: string | null; headers?: Record<string, string> } = {}) => {
    const method = opts.method ?? (opts.body === undefined ? "GET" : "POST");
    return fetch(`${env.server.url}/api/views${route}`, {
      method,
      headers: {
        ...(method === "GET" || method === "HEAD" ? {} : { "Content-Type": "application/json" }),
        ...(opts.cookie === null ? {} : { Cookie: opts.cookie ?? cookies.alice }),
        Origin: env.server.url,
        ...opts.headers,
      },
      body: method === "GET" || method === "HEAD" ? undefined : typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body ?? {}),
    });
  };
  const list = async (cookie = cookies.alice): Promise<View[]> => {
    const res = await call("", { cookie });
    expect(res.status).toBe(200);
    return (await res.json()).views;
  };
  const create = async (body: Record<string, unknown>, cookie = cookies.alice): Promise<View> => {
    const res = await call("", { body, cookie });
    expect(res.status, JSON.stringify(body)).toBe(201);
    return (await res.json()).view;
  };
  const update = async (id: number, body: Record<string, unknown>): Promise<View> => {
    const res = await call(`/${id}`, { body });
    expect(res.status, JSON.stringify(body)).toBe(200);
    return (await res.json()).view;
  };
  const problem = async (res: Response, status: number) => {
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    return (await res.json()) as { title: string; detail: string; errors?: { field: string; message: string }[] };
  };

  beforeAll(async () => {
    env = await setupApiEnv(backend);
    for (const [key, user] of Object.entries({ alice: ALICE, bob: BOB, carol: CAROL })) {
      await addUser(env.env, user.email, user.password, user.access);
      cookies[key] = await signIn(env.server.url, user.email, user.password);
    }
  });

  afterAll(async () => {
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  let open: View;
  let second: View;
  let late: View;

  it("creates views and lists them by page, then name", async () => {
    expect(await list()).toEqual([]);
    const before = Date.now();
    const res = await call("", { body: { name: "  Open MC  ", page: "/chargebacks", query: "?card_type=MC&sort=FILE_DATE", columns: { merchant_name: false, shop_code: true } } });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    open = (await res.json()).view;
    expect(open).toEqual({
      id: expect.any(Number),
      name: "Open MC",
      page: "/chargebacks",
      query: "?card_type=MC&sort=FILE_DATE",
      columns: { merchant_name: false, shop_code: true },
      is_default: false,
      created_at: open.created_at,
      updated_at: open.created_at,
    });
    expect(new Date(open.created_at).toISOString()).toBe(open.created_at);
    expect(Date.parse(open.created_at)).toBeGreaterThanOrEqual(before - 1000);
    late = await create({ name: "late ones", page: "/worklist", query: "" });
    expect(late.columns).toBeNull();
    second = await create({ name: "Another grid", page: "/chargebacks", query: "?shops=Zeta", columns: null });
    await create({ name: "Report", page: "/report", query: "?from=2026-01-01" });
    await create({ name: "Cases", page: "/pre-arbitration", query: "" });
    await create({ name: "Trends", page: "/overview", query: "?from=2026-01-01&to=2026-03-31" });
    const listed = await list();
    expect(listed.map((v) => [v.page, v.name])).toEqual([
      ["/chargebacks", "Another grid"],
      ["/chargebacks", "Open MC"],
      ["/overview", "Trends"],
      ["/pre-arbitration", "Cases"],
      ["/report", "Report"],
      ["/worklist", "late ones"],
    ]);
    expect(listed.find((v) => v.id === open.id)).toEqual(open);
  });

  it("keeps names unique per user regardless of case: 409 naming name", async () => {
    const taken = await problem(await call("", { body: { name: "OPEN mc", page: "/overview", query: "" } }), 409);
    expect(taken.errors).toEqual([{ field: "name", message: 'you already have a view named "OPEN mc"' }]);
    const renamed = await problem(await call(`/${second.id}`, { body: { name: " open MC " } }), 409);
    expect(renamed.errors?.[0].field).toBe("name");
    // Another user may use the same name.
    expect((await create({ name: "Open MC", page: "/chargebacks", query: "" }, cookies.bob)).name).toBe("Open MC");
    // Renaming a view to its own name in other letters is no clash.
    const recased = await update(open.id, { name: "open MC" });
    expect(recased.name).toBe("open MC");
    expect(Date.parse(recased.updated_at)).toBeGreaterThanOrEqual(Date.parse(open.updated_at));
    open = await update(open.id, { name: "Open MC" });
    expect(await list()).toContainEqual(open);
  });

  it("makes one view per page the default, unmarking the page's other default", async () => {
    open = await update(open.id, { is_default: true });
    expect(open.is_default).toBe(true);
    late = await update(late.id, { is_default: true });
    second = await update(second.id, { is_default: true, name: "Second grid" });
    expect(second).toMatchObject({ is_default: true, name: "Second grid" });
    const defaults = (await list()).filter((v) => v.is_default).map((v) => v.name);
    expect(defaults).toEqual(["Second grid", "late ones"]);
    second = await update(second.id, { is_default: false });
    expect((await list()).filter((v) => v.is_default).map((v) => v.name)).toEqual(["late ones"]);
  });

  it("refuses bodies that break the rules with 400 naming the field", async () => {
    const field = async (route: string, body: unknown) => (await problem(await call(route, { body }), 400)).errors?.map((e) => e.field);
    const valid = { name: "x", page: "/worklist", query: "" };
    expect(await field("", { ...valid, name: "n".repeat(201) })).toEqual(["name"]);
    expect(await field("", { ...valid, name: "   " })).toEqual(["name"]);
    expect(await field("", { ...valid, name: "tab\there" })).toEqual(["name"]);
    expect(await field("", { ...valid, page: "/elsewhere" })).toEqual(["page"]);
    expect(await field("", { ...valid, query: "card_type=MC" })).toEqual(["query"]);
    expect(await field("", { ...valid, query: `?${"q".repeat(4000)}` })).toEqual(["query"]);
    expect(await field("", { ...valid, columns: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`c${i}`, true])) })).toEqual(["columns"]);
    expect(await field("", { ...valid, columns: { merchant_name: "no" } })).toEqual(["columns.merchant_name"]);
    expect(await field("", { ...valid, owner: 2 })).toEqual(["owner"]);
    expect(await field("", { name: "x", page: "/worklist" })).toEqual(["query"]);
    expect(await field(`/${open.id}`, {})).toEqual([""]);
    expect(await field(`/${open.id}`, { is_default: "yes" })).toEqual(["is_default"]);
    expect(await field(`/${open.id}`, { query: "?x" })).toEqual(["query"]);
    expect(await field(`/${open.id}/delete`, { id: open.id })).toEqual(["id"]);
    // 200 characters are fine, and so are 200 columns.
    const longest = await create({ ...valid, name: "n".repeat(200), columns: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`c${i}`, i % 2 === 0])) });
    expect(longest.name).toHaveLength(200);
    expect((await call(`/${longest.id}/delete`, { body: {} })).status).toBe(204);
    await problem(await call("", { body: {}, headers: { "Content-Type": "text/plain" } }), 415);
    await problem(await call("", { body: JSON.stringify({ ...valid, pad: "y".repeat(1024 * 1024) }) }), 413);
  });

  it("never shows or lets another user change a view: 404", async () => {
    const mine = await list();
    const theirs = await list(cookies.bob);
    expect(theirs.map((v) => v.name)).toEqual(["Open MC"]);
    for (const view of mine) {
      await problem(await call(`/${view.id}`, { body: { name: "taken over" }, cookie: cookies.bob }), 404);
      await problem(await call(`/${view.id}`, { body: { is_default: true }, cookie: cookies.bob }), 404);
      await problem(await call(`/${view.id}/delete`, { body: {}, cookie: cookies.bob }), 404);
    }
    const absent = await problem(await call(`/${theirs[0].id}`, { body: { name: "mine now" } }), 404);
    const nonexistent = await problem(await call("/999999", { body: { name: "mine now" } }), 404);
    expect(absent.detail.replace(/"\d+"/, "")).toBe(nonexistent.detail.replace(/"\d+"/, ""));
    await problem(await call("/abc", { body: { name: "x" } }), 404);
    await problem(await call("/0/delete", { body: {} }), 404);
    expect(await list()).toEqual(mine);
    expect(await list(cookies.bob)).toEqual(theirs);
  });

  it("refuses cookie requests from another origin (403) and changes nothing", async () => {
    const before = await list();
    const evil = { Origin: "http://evil.example" };
    for (const res of [
      await call("", { body: { name: "Evil", page: "/worklist", query: "" }, headers: evil }),
      await call(`/${open.id}`, { body: { name: "Evil" }, headers: evil }),
      await call(`/${open.id}`, { body: { is_default: false }, headers: evil }),
      await call(`/${open.id}/delete`, { body: {}, headers: evil }),
      await call("", { body: { name: "Evil", page: "/worklist", query: "" }, headers: { Origin: "null" } }),
      await call("", { body: { name: "Evil", page: "/worklist", query: "" }, headers: { Origin: "", "Sec-Fetch-Site": "cross-site" } }),
      await call("", { headers: evil }),
    ]) {
      await problem(res, 403);
    }
    expect(await list()).toEqual(before);
  });

  it("answers 401 without a session and refuses signed shop requests", async () => {
    await problem(await call("", { cookie: null }), 401);
    await problem(await call("", { cookie: null, body: { name: "x", page: "/worklist", query: "" } }), 401);
    await problem(await call(`/${open.id}/delete`, { cookie: "dr_session=forged", body: {} }), 401);
    const cred = CREDENTIALS.wide;
    const signedList = await problem(await call("", { cookie: null, headers: signedHeaders(cred.shop, cred.password) }), 403);
    expect(signedList.detail).toMatch(/dashboard users/);
    await problem(await call("", { cookie: null, body: { name: "x", page: "/worklist", query: "" }, headers: signedHeaders(cred.shop, cred.password) }), 403);
    await problem(await call(`/${open.id}/delete`, { body: {}, headers: signedHeaders(cred.shop, cred.password) }), 403);
    expect((await list()).map((v) => v.id)).toContain(open.id);
  });

  it("answers other methods with 405", async () => {
    const allowed = async (route: string, method: string, allow: string) => {
      const res = await call(route, { method, body: method === "GET" ? undefined : {} });
      await problem(res, 405);
      expect(res.headers.get("allow")).toBe(allow);
    };
    await allowed("", "PUT", "GET, POST");
    await allowed("", "DELETE", "GET, POST");
    await allowed(`/${open.id}`, "GET", "POST");
    await allowed(`/${open.id}`, "PATCH", "POST");
    await allowed(`/${open.id}`, "DELETE", "POST");
    await allowed(`/${open.id}/delete`, "GET", "POST");
    await allowed(`/${open.id}/delete`, "DELETE", "POST");
  });

  it("deletes a view: 204, then 404", async () => {
    const res = await call(`/${late.id}/delete`, { body: {} });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect((await list()).map((v) => v.id)).not.toContain(late.id);
    await problem(await call(`/${late.id}/delete`, { body: {} }), 404);
    await problem(await call(`/${late.id}`, { body: { name: "back" } }), 404);
    // An empty body is the same as {}.
    const gone = await create({ name: "Short-lived", page: "/worklist", query: "" });
    expect((await call(`/${gone.id}/delete`, { body: "" })).status).toBe(204);
  });

  it("keeps at most 100 views per user: the 101st is refused with 409", async () => {
    for (let i = 1; i <= 100; i++) await create({ name: `View ${i}`, page: "/worklist", query: `?n=${i}` }, cookies.carol);
    const refused = await problem(await call("", { body: { name: "View 101", page: "/worklist", query: "" }, cookie: cookies.carol }), 409);
    expect(refused.detail).toMatch(/100 saved views/);
    const views = await list(cookies.carol);
    expect(views).toHaveLength(100);
    // Deleting one makes room again.
    expect((await call(`/${views[0].id}/delete`, { body: {}, cookie: cookies.carol })).status).toBe(204);
    await create({ name: "View 101", page: "/worklist", query: "" }, cookies.carol);
  });

  it.runIf(backend.name === "sqlite")("waits for an import's write lock on SQLite without holding up other requests", async () => {
    const { default: Sqlite } = await import("better-sqlite3");
    const importing = new Sqlite(env.databaseUrl.replace(/^file:/, ""));
    try {
      importing.exec("begin immediate");
      const saving = call("", { body: { name: "Saved during an import", page: "/worklist", query: "" } });
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Meanwhile the server answers, from the views as they were.
      const started = Date.now();
      expect((await list()).map((v) => v.name)).not.toContain("Saved during an import");
      expect(Date.now() - started).toBeLessThan(400);
      importing.exec("commit");
      const saved = await saving;
      expect(saved.status).toBe(201);
      expect((await list()).map((v) => v.name)).toContain("Saved during an import");
    } finally {
      if (importing.inTransaction) importing.exec("rollback");
      importing.close();
    }
  });

  it("outlives the session: signed out and in again, the user has the same views", async () => {
    const before = await list();
    expect(before.length).toBeGreaterThan(3);
    await signOut(env.server.url, cookies.alice);
    await problem(await call("", { cookie: cookies.alice }), 401);
    cookies.alice = await signIn(env.server.url, ALICE.email, ALICE.password);
    expect(await list()).toEqual(before);
  });
});
