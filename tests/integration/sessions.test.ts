import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createUser, verifyUserLogin } from "@/lib/auth/accounts";
import { createSession, deleteSession, findSession, SESSION_COOKIE, sessionTtl, sessionTtlMs } from "@/lib/auth/sessions";
import { type Db, openDatabase } from "@/lib/data/connection/db";
import { backends, dropCreatedDatabases } from "../helpers/db";

/** Dashboard sign-in (docs/api.md, "Dashboard sign-in"): password check and server-side sessions, on every backend. */

afterAll(() => dropCreatedDatabases());

const HOUR = 60 * 60 * 1000;
const sha256 = (s: string) => crypto.createHash("sha256").update(s).digest("hex");

describe("session settings", () => {
  it("names the cookie and defaults to 8 hours", () => {
    expect(SESSION_COOKIE).toBe("dr_session");
    expect(sessionTtlMs(undefined)).toBe(8 * HOUR);
    expect(sessionTtlMs("")).toBe(8 * HOUR);
  });

  it("takes SESSION_TTL_HOURS, and refuses values that are not a positive number", async () => {
    expect(sessionTtlMs("2")).toBe(2 * HOUR);
    expect(sessionTtlMs("0.5")).toBe(HOUR / 2);
    for (const bad of ["0", "-1", "abc", "1e3", "8h", "100000"]) expect(() => sessionTtlMs(bad), bad).toThrow(/SESSION_TTL_HOURS/);

    const saved = process.env.SESSION_TTL_HOURS;
    process.env.SESSION_TTL_HOURS = "1.5";
    try {
      vi.resetModules();
      const fresh = await import("@/lib/auth/sessions");
      expect(fresh.sessionTtl()).toBe(1.5 * HOUR);
    } finally {
      if (saved === undefined) delete process.env.SESSION_TTL_HOURS;
      else process.env.SESSION_TTL_HOURS = saved;
      vi.resetModules();
    }
  });
});

describe.each(backends)("accounts and sessions on $name", (backend) => {
  let handle: Db;
  let annId: number;
  let bobId: number;

  beforeAll(async () => {
    handle = await openDatabase(await backend.create());
    await createUser(handle.db, { email: "Ann@Example.test", password: "ann-password-1", access: ["shop-a", "shop-b"] });
    await createUser(handle.db, { email: "bob@example.test", password: "bob-password-1", access: ["shop-c"] });
    const ids = await handle.db.selectFrom("users").select(["id", "email"]).execute();
    annId = Number(ids.find((u) => u.email === "ann@example.test")!.id);
    bobId = Number(ids.find((u) => u.email === "bob@example.test")!.id);
  });

  afterAll(async () => {
    await handle?.close();
  });

  describe("verifyUserLogin", () => {
    it("returns the user for the right password, whatever the e-mail's case and surrounding spaces", async () => {
      expect(await verifyUserLogin(handle.db, "ann@example.test", "ann-password-1")).toEqual({ userId: annId, email: "ann@example.test", access: ["shop-a", "shop-b"] });
      expect(await verifyUserLogin(handle.db, " ANN@example.TEST ", "ann-password-1")).toMatchObject({ userId: annId });
    });

    it("returns null for a wrong password, another user's password, an unknown or malformed e-mail", async () => {
      expect(await verifyUserLogin(handle.db, "ann@example.test", "ann-password-2")).toBeNull();
      expect(await verifyUserLogin(handle.db, "ann@example.test", "ANN-PASSWORD-1")).toBeNull();
      expect(await verifyUserLogin(handle.db, "ann@example.test", "bob-password-1")).toBeNull();
      expect(await verifyUserLogin(handle.db, "ann@example.test", "")).toBeNull();
      expect(await verifyUserLogin(handle.db, "nobody@example.test", "ann-password-1")).toBeNull();
      expect(await verifyUserLogin(handle.db, "not an e-mail", "ann-password-1")).toBeNull();
    });

    it("spends the scrypt work on an unknown e-mail as on a known one", async () => {
      const time = async (email: string) => {
        const start = performance.now();
        await verifyUserLogin(handle.db, email, "wrong-password");
        return performance.now() - start;
      };
      await time("nobody@example.test"); // the dummy hash is made once per process
      const known = Math.min(await time("ann@example.test"), await time("ann@example.test"));
      const unknown = Math.min(await time("nobody@example.test"), await time("nobody@example.test"));
      // Loose bounds: only the absence of scrypt (a database round trip, well under a tenth) fails.
      expect(unknown).toBeGreaterThan(known * 0.3);
    });
  });

  describe("sessions", () => {
    it("hands out a random 32-byte token and stores only its SHA-256", async () => {
      const now = Date.now();
      const a = await createSession(handle.db, annId, now);
      const b = await createSession(handle.db, annId, now);
      expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(a.token, "base64url")).toHaveLength(32);
      expect(a.token).not.toBe(b.token);
      expect(a.expiresAt).toBe(now + sessionTtl());
      const row = await handle.db.selectFrom("sessions").selectAll().where("token_hash", "=", sha256(a.token)).executeTakeFirst();
      expect(row).toMatchObject({ user_id: annId, created_at: now, expires_at: now + sessionTtl() });
      const all = JSON.stringify(await handle.db.selectFrom("sessions").selectAll().execute());
      expect(all).not.toContain(a.token);
      expect(all).not.toContain(b.token);
    });

    it("finds the user of an unexpired session, and nothing for any other token", async () => {
      const now = Date.now();
      const { token, expiresAt } = await createSession(handle.db, annId, now);
      expect(await findSession(handle.db, token, now)).toEqual({ userId: annId, email: "ann@example.test", access: ["shop-a", "shop-b"], expiresAt });
      expect(await findSession(handle.db, token)).toMatchObject({ userId: annId });
      const other = await createSession(handle.db, bobId, now);
      expect(await findSession(handle.db, other.token, now)).toMatchObject({ userId: bobId, access: ["shop-c"] });

      expect(await findSession(handle.db, token.slice(0, -1), now)).toBeNull();
      expect(await findSession(handle.db, sha256(token), now)).toBeNull();
      expect(await findSession(handle.db, "", now)).toBeNull();
      expect(await findSession(handle.db, "x".repeat(10_000), now)).toBeNull();
    });

    it("expires at expiresAt", async () => {
      const now = Date.now();
      const { token, expiresAt } = await createSession(handle.db, annId, now);
      expect(await findSession(handle.db, token, expiresAt - 1)).not.toBeNull();
      expect(await findSession(handle.db, token, expiresAt)).toBeNull();
      expect(await findSession(handle.db, token, expiresAt + HOUR)).toBeNull();
    });

    it("purges expired sessions when a new one is made", async () => {
      const old = await createSession(handle.db, bobId, 1_000_000);
      const hash = sha256(old.token);
      expect(await handle.db.selectFrom("sessions").select("token_hash").where("token_hash", "=", hash).executeTakeFirst()).toBeDefined();
      const live = await createSession(handle.db, annId, Date.now());
      expect(await handle.db.selectFrom("sessions").select("token_hash").where("token_hash", "=", hash).executeTakeFirst()).toBeUndefined();
      const left = await handle.db.selectFrom("sessions").select("expires_at").execute();
      expect(left.every((r) => Number(r.expires_at) > Date.now())).toBe(true);
      expect(await findSession(handle.db, live.token)).not.toBeNull();
    });

    it("ends on sign-out on the server, leaving other sessions alone", async () => {
      const mine = await createSession(handle.db, annId);
      const other = await createSession(handle.db, annId);
      await deleteSession(handle.db, mine.token);
      expect(await findSession(handle.db, mine.token)).toBeNull();
      expect(await handle.db.selectFrom("sessions").select("token_hash").where("token_hash", "=", sha256(mine.token)).executeTakeFirst()).toBeUndefined();
      expect(await findSession(handle.db, other.token)).not.toBeNull();
      // Signing out twice, or with a token that was never issued, is harmless.
      await deleteSession(handle.db, mine.token);
      await deleteSession(handle.db, "never-issued");
      await deleteSession(handle.db, "");
    });
  });
});
