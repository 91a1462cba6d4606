import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/data/connection/db";
import { unsubscribeToken } from "@/lib/mail/unsubscribe";
import { addUser, signIn } from "../helpers/accounts";
import { backends, dropCreatedDatabases } from "../helpers/db";
import { CREDENTIALS } from "./fixture";
import { type ApiEnv, setupApiEnv, signedHeaders } from "./harness";

/**
 * A user's own mail settings (docs/api.md, "Mail settings") and the one-click unsubscribe link
 * (docs/mail.md, "Unsubscribing") against a real server on each backend: read and changed by the
 * signed-in user only, from this site's own pages only, bad values refused with nothing changed;
 * the link's GET changes nothing, its POST turns exactly that user's kind of mail off without a
 * cookie, an altered or re-aimed token changes nothing, and it signs nobody in.
 */

const DANA = { email: "dana@example.test", password: "dana-password-1", access: ["Zeta"] };
const ERIK = { email: "erik@example.test", password: "erik-password-1", access: ["zz"] };

describe.each(backends)("mail settings and unsubscribing on $name", (backend) => {
  let env: ApiEnv;
  const cookies: Record<string, string> = {};
  const ids: Record<string, number> = {};

  const call = (opts: { body?: unknown; cookie?: string | null; headers?: Record<string, string>; method?: string } = {}) => {
    const method = opts.method ?? (opts.body === undefined ? "GET" : "POST");
    return fetch(`${env.server.url}/api/mail-settings`, {
      method,
      headers: {
        ...(method === "POST" ? { "Content-Type": "application/json" } : {}),
        ...(opts.cookie === null ? {} : { Cookie: opts.cookie ?? cookies.dana }),
        Origin: env.server.url,
        ...opts.headers,
      },
      body: method === "POST" ? (typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body ?? {})) : undefined,
    });
  };
  const settingsOf = async (cookie = cookies.dana) => {
    const res = await call({ cookie });
    expect(res.status).toBe(200);
    return (await res.json()) as { settings: Record<string, unknown>; mail_enabled: boolean };
  };
  /** The stored row, read beside the server (no row: the defaults). */
  const storedRow = async (userId: number) => {
    const db = await openDatabase(env.databaseUrl);
    try {
      return (await db.db.selectFrom("mail_settings").selectAll().where("user_id", "=", userId).executeTakeFirst()) ?? null;
    } finally {
      await db.close();
    }
  };
  const token = (userId: number, kind: "digest" | "alert") => {
    // The same key file as the server: the token is made as the server makes it.
    process.env.APP_KEY_FILE = env.env.APP_KEY_FILE;
    return unsubscribeToken(userId, kind);
  };
  const unsubscribe = (tokenText: string, body: string | FormData, headers: Record<string, string> = {}) =>
    fetch(`${env.server.url}/unsubscribe/${tokenText}`, {
      method: "POST",
      body,
      headers: typeof body === "string" ? { "Content-Type": "application/x-www-form-urlencoded", ...headers } : headers,
      redirect: "manual",
    });

  beforeAll(async () => {
    // A mail server that is not there: mail is configured, nothing needs to arrive here.
    env = await setupApiEnv(backend, { SMTP_URL: "smtp://127.0.0.1:9", APP_URL: "https://disputes.example.test" });
    for (const [key, user] of Object.entries({ dana: DANA, erik: ERIK })) {
      await addUser(env.env, user.email, user.password, user.access);
      cookies[key] = await signIn(env.server.url, user.email, user.password);
    }
    const db = await openDatabase(env.databaseUrl);
    try {
      for (const row of await db.db.selectFrom("users").select(["id", "email"]).execute()) ids[row.email.split("@")[0]] = Number(row.id);
    } finally {
      await db.close();
    }
  });

  afterAll(async () => {
    await env?.server.stop();
    await dropCreatedDatabases();
  });

  it("answers a new user's defaults and that this server sends mail", async () => {
    expect(await settingsOf()).toEqual({ settings: { digest: "daily", at: "08:00", zone: "UTC", alerts: false }, mail_enabled: true });
    expect(await storedRow(ids.dana)).toBeNull();
  });

  it("changes the fields a POST names, in their normal spelling, and keeps the rest", async () => {
    const res = await call({ body: { digest: "weekly", at: "7:05", zone: "europe/berlin" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({ settings: { digest: "weekly", at: "07:05", zone: "Europe/Berlin", alerts: false }, mail_enabled: true });
    const alerts = await call({ body: { alerts: true } });
    expect((await alerts.json()).settings).toEqual({ digest: "weekly", at: "07:05", zone: "Europe/Berlin", alerts: true });
    expect(await storedRow(ids.dana)).toMatchObject({ digest: "weekly", digest_at: "07:05", zone: "Europe/Berlin" });
    // Another user's settings are untouched.
    expect((await settingsOf(cookies.erik)).settings).toEqual({ digest: "daily", at: "08:00", zone: "UTC", alerts: false });
  });

  it.each([
    [{ digest: "hourly" }, "digest"],
    [{ at: "24:00" }, "at"],
    [{ at: "8am" }, "at"],
    [{ zone: "Mars/Olympus_Mons" }, "zone"],
    [{ zone: "+01:00" }, "zone"],
    [{ alerts: "yes" }, "alerts"],
    [{ digest: "daily", email: "someone@else.test" }, "email"],
  ])("refuses %o with 400 naming the field, and changes nothing", async (body, field) => {
    const res = await call({ body });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    const problem = (await res.json()) as { errors: { field: string; message: string }[] };
    expect(problem.errors.map((e) => e.field)).toContain(field);
    expect((await settingsOf()).settings).toEqual({ digest: "weekly", at: "07:05", zone: "Europe/Berlin", alerts: true });
  });

  it("is for signed-in users of this site's own pages only", async () => {
    expect((await call({ cookie: null })).status).toBe(401);
    expect((await call({ cookie: null, body: { digest: "off" } })).status).toBe(401);
    const cred = CREDENTIALS.wide;
    expect((await call({ cookie: null, headers: signedHeaders(cred.shop, cred.password) })).status).toBe(403);
    const crossSite = await call({ body: { digest: "off" }, headers: { Origin: "https://evil.example" } });
    expect(crossSite.status).toBe(403);
    expect((await call({ body: "digest=off", headers: { "Content-Type": "application/x-www-form-urlencoded" } })).status).toBe(415);
    const put = await call({ method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST");
    expect((await settingsOf()).settings.digest).toBe("weekly");
  });

  it("shows a page on GET of an unsubscribe link and changes nothing (a link scanner turns nothing off)", async () => {
    const res = await fetch(`${env.server.url}/unsubscribe/${token(ids.dana, "digest")}`, { redirect: "manual" });
    expect(res.status).toBe(200);
    // React's text separators aside, the page as a person reads it.
    const html = (await res.text()).replace(/<!-- -->/g, "");
    expect(html).toContain("Stop digest e-mails to");
    expect(html).toContain(DANA.email);
    expect(html).toContain("Unsubscribe");
    expect(res.headers.getSetCookie()).toEqual([]);
    expect((await settingsOf()).settings.digest).toBe("weekly");
  });

  it("turns the token's kind off on a one-click POST without a cookie, for that user only, and signs nobody in", async () => {
    const res = await unsubscribe(token(ids.dana, "digest"), "List-Unsubscribe=One-Click");
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await res.json()).toEqual({ kind: "digest", on: false });
    expect((await settingsOf()).settings).toEqual({ digest: "off", at: "07:05", zone: "Europe/Berlin", alerts: true });
    expect((await settingsOf(cookies.erik)).settings.digest).toBe("daily");
    // Again: still off, still 2xx.
    expect((await unsubscribe(token(ids.dana, "digest"), "List-Unsubscribe=One-Click")).status).toBe(200);

    // Multipart, as RFC 8058 also allows, for the alerts.
    const form = new FormData();
    form.append("List-Unsubscribe", "One-Click");
    const alerts = await unsubscribe(token(ids.dana, "alert"), form);
    expect(alerts.status).toBe(200);
    expect((await settingsOf()).settings).toEqual({ digest: "off", at: "07:05", zone: "Europe/Berlin", alerts: false });
  });

  it("turns it back on from the page's undo, to the frequency it had", async () => {
    const res = await unsubscribe(token(ids.dana, "digest"), "undo=weekly");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ kind: "digest", on: true });
    expect((await settingsOf()).settings.digest).toBe("weekly");
    expect((await unsubscribe(token(ids.dana, "alert"), "undo=on")).status).toBe(200);
    expect((await settingsOf()).settings.alerts).toBe(true);
    // An undo can do no more than turn that kind back on.
    expect((await unsubscribe(token(ids.dana, "alert"), "undo=weekly")).status).toBe(400);
    expect((await unsubscribe(token(ids.dana, "digest"), "undo=off")).status).toBe(400);
    expect((await unsubscribe(token(ids.dana, "digest"), "List-Unsubscribe=Yes")).status).toBe(400);
  });

  it("refuses an altered token, or one aimed at the other kind or another user, with 404 and no change", async () => {
    const good = token(ids.dana, "digest");
    const last = good.at(-2)!;
    const altered = [
      good.slice(0, -2) + (last === "A" ? "B" : "A") + good.at(-1),
      good.replace(".digest.", ".alert."),
      good.replace(/^\d+/, String(ids.erik)),
      `${ids.dana}.digest`,
      "not-a-token",
    ];
    for (const bad of altered) {
      const res = await unsubscribe(bad, "List-Unsubscribe=One-Click");
      expect(res.status, bad).toBe(404);
      const page = await fetch(`${env.server.url}/unsubscribe/${bad}`);
      expect(page.status, bad).toBe(404);
      await page.arrayBuffer();
    }
    expect((await settingsOf()).settings).toEqual({ digest: "weekly", at: "07:05", zone: "Europe/Berlin", alerts: true });
    expect((await settingsOf(cookies.erik)).settings).toEqual({ digest: "daily", at: "08:00", zone: "UTC", alerts: false });
  });

  it("answers other methods of the route itself with 405", async () => {
    const res = await fetch(`${env.server.url}/api/unsubscribe/${token(ids.dana, "digest")}`);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});
