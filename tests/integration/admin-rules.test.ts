import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyUserLogin } from "@/lib/auth/accounts";
import { hashPassword, verifyPassword } from "@/lib/auth/passwords";
import { decryptSecret } from "@/lib/auth/secrets";
import { createSession, deleteSession, findSession, SESSION_TTL_MS } from "@/lib/auth/sessions";
import { type Db, openDatabase } from "@/lib/data/db";
import { type CliResult, runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";

/**
 * Every rule of CONTRACT 7 through the real admin command (a child process) on each backend,
 * plus the sign-in primitives it feeds (CONTRACT 5): verifyUserLogin and server-side sessions.
 */

// The key must come from the key file the commands share with this process, not from a secret.
delete process.env.APP_SECRET;

const PW = {
  s1: "first-shop-pw",
  s2: "pw=45678",
  s3: "stdin shop password",
  alice: "Alice-Password-1",
};

function expectCleanFailure(r: CliResult, message: RegExp) {
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toContain("    at ");
}

describe.each(backends)("admin command on $name", (backend) => {
  let env: Record<string, string>;
  let keyFile: string;
  let db: Db;
  const admin = (args: string[], stdin?: string) => runCli("admin.ts", args, env, stdin);

  async function shopRow(code: string) {
    return db.db.selectFrom("shops").selectAll().where("shop_code", "=", code).executeTakeFirst();
  }
  async function userRows() {
    return db.db.selectFrom("users").selectAll().orderBy("id").execute();
  }

  beforeAll(async () => {
    const dir = tempDir("disputes-admin-");
    keyFile = path.join(dir, "keys", "app.key");
    env = { DATABASE_URL: await backend.create(), APP_KEY_FILE: keyFile, APP_SECRET: "" };
    // decryptSecret in this process reads the same key file.
    process.env.APP_KEY_FILE = keyFile;
    // A first command creates the schema, so the test can open the database beside the commands.
    const first = await admin(["shop", "add", "s1", "--password", PW.s1]);
    expect(first.code, first.stderr).toBe(0);
    db = await openDatabase(env.DATABASE_URL);
  });
  afterAll(async () => {
    await db?.close();
    await dropCreatedDatabases();
  });

  describe("shop add", () => {
    it("gives a new shop access to itself by default, and stores its password encrypted", async () => {
      const row = await shopRow("s1");
      expect(row).toBeDefined();
      expect(JSON.parse(row!.access_list)).toEqual(["s1"]);
      expect(row!.password_enc).not.toContain(PW.s1);
      expect(decryptSecret(row!.password_enc, "s1")).toBe(PW.s1);
      // The ciphertext is bound to its shop.
      expect(() => decryptSecret(row!.password_enc, "s2")).toThrow();
      // The key file was created by the command, readable by its owner only.
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    });

    it("takes --password=<pw> (exactly 8 characters, with an =) and --access=<list>; the shop comes first, no duplicates", async () => {
      const r = await admin(["shop", "add", "s2", `--password=${PW.s2}`, "--access=s3,s2,s3,no-credential-shop"]);
      expect(r.code, r.stderr).toBe(0);
      const row = await shopRow("s2");
      expect(JSON.parse(row!.access_list)).toEqual(["s2", "s3", "no-credential-shop"]);
      expect(decryptSecret(row!.password_enc, "s2")).toBe(PW.s2);
      expect(r.stdout).not.toContain(PW.s2);
    });

    it("reads the password from the first line of standard input with --password-stdin", async () => {
      const r = await admin(["shop", "add", "s3", "--password-stdin", "--access", "s1"], `${PW.s3}\nsecond line\n`);
      expect(r.code, r.stderr).toBe(0);
      const row = await shopRow("s3");
      expect(decryptSecret(row!.password_enc, "s3")).toBe(PW.s3);
      expect(JSON.parse(row!.access_list)).toEqual(["s3", "s1"]);
      expect(r.stdout).not.toContain(PW.s3);
    });

    it("refuses a duplicate shop and keeps the first one unchanged", async () => {
      const before = await shopRow("s1");
      const r = await admin(["shop", "add", "s1", "--password", "another-password", "--access", "s2"]);
      expectCleanFailure(r, /s1.*already exists|already exists.*s1/);
      expect(await shopRow("s1")).toEqual(before);
    });

    it("refuses a password under 8 characters, a missing password, and both --password and --password-stdin", async () => {
      const [short, missing, both] = await Promise.all([
        admin(["shop", "add", "short", "--password", "1234567"]),
        admin(["shop", "add", "nopw", "--access", "s1"]),
        admin(["shop", "add", "both", "--password", "long-enough-pw", "--password-stdin"], "long-enough-pw\n"),
      ]);
      expectCleanFailure(short, /8 characters/);
      expectCleanFailure(missing, /password/);
      expectCleanFailure(both, /password-stdin/);
      for (const code of ["short", "nopw", "both"]) expect(await shopRow(code)).toBeUndefined();
    });
  });

  describe("bad commands", () => {
    it("refuses an unknown command and an unknown option", async () => {
      const [unknownCommand, unknownOption] = await Promise.all([
        admin(["shop", "remove", "s1"]),
        admin(["shop", "add", "s9", "--password", "long-enough-pw", "--colour", "red"]),
      ]);
      expectCleanFailure(unknownCommand, /unknown command/);
      expectCleanFailure(unknownOption, /--colour/);
      expect(await shopRow("s9")).toBeUndefined();
    });
  });

  describe("user add", () => {
    it("stores the e-mail in lower case and the password as a scrypt hash", async () => {
      const r = await admin(["user", "add", "Alice@Example.COM", "--password-stdin", "--access", "s1,unregistered,s1"], `${PW.alice}\n`);
      expect(r.code, r.stderr).toBe(0);
      const users = await userRows();
      expect(users).toHaveLength(1);
      expect(users[0].email).toBe("alice@example.com");
      expect(users[0].password_hash.startsWith("scrypt$")).toBe(true);
      expect(users[0].password_hash).not.toContain(PW.alice);
      expect(JSON.parse(users[0].access_list)).toEqual(["s1", "unregistered"]);
    });

    it("requires --access, and refuses the same e-mail in another case", async () => {
      const before = await userRows();
      const [noAccess, dup] = await Promise.all([
        admin(["user", "add", "carol@example.com", "--password", "long-enough-pw"]),
        admin(["user", "add", "ALICE@example.com", "--password", "another-password", "--access", "s2"]),
      ]);
      expectCleanFailure(noAccess, /--access/);
      expectCleanFailure(dup, /already exists/);
      expect(await userRows()).toEqual(before);
    });
  });

  describe("lists", () => {
    /** "code  a, b" or "code  a,b" -> { code: [a, b] } */
    const entries = (stdout: string) =>
      Object.fromEntries(
        stdout
          .trim()
          .split("\n")
          .slice(1)
          .map((l) => {
            const [first, ...rest] = l.trim().split(/\s+/);
            return [first, rest.join(" ").split(/\s*,\s*/).filter(Boolean)];
          }),
      );

    it("shop list and user list show codes, e-mails and access lists, never a password", async () => {
      const [shops, users] = await Promise.all([admin(["shop", "list"]), admin(["user", "list"])]);
      expect(shops.code, shops.stderr).toBe(0);
      expect(entries(shops.stdout)).toEqual({ s1: ["s1"], s2: ["s2", "s3", "no-credential-shop"], s3: ["s3", "s1"] });
      for (const pw of [PW.s1, PW.s2, PW.s3]) expect(shops.stdout).not.toContain(pw);
      for (const row of await db.db.selectFrom("shops").select("password_enc").execute()) expect(shops.stdout).not.toContain(row.password_enc);

      // user list shows e-mails and access lists, never a password or its hash
      expect(users.code, users.stderr).toBe(0);
      expect(entries(users.stdout)).toEqual({ "alice@example.com": ["s1", "unregistered"] });
      expect(users.stdout).not.toContain(PW.alice);
      expect(users.stdout).not.toContain("scrypt$");
    });
  });

  describe("sign-in primitives", () => {
    it("verifyUserLogin accepts the right password in any e-mail case and nothing else", async () => {
      const ok = await verifyUserLogin(db.db, "ALICE@example.com", PW.alice);
      expect(ok).toMatchObject({ email: "alice@example.com", access: ["s1", "unregistered"] });
      expect(typeof ok!.userId).toBe("number");
      expect(await verifyUserLogin(db.db, "alice@example.com", PW.alice + "x")).toBeNull();
      expect(await verifyUserLogin(db.db, "alice@example.com", PW.s1)).toBeNull();
      expect(await verifyUserLogin(db.db, "nobody@example.com", PW.alice)).toBeNull();
      expect(await verifyUserLogin(db.db, "not an e-mail", PW.alice)).toBeNull();
    });

    it("creates, finds, expires and deletes sessions, storing only the SHA-256 of the token", async () => {
      const user = (await verifyUserLogin(db.db, "alice@example.com", PW.alice))!;
      const t0 = 1_800_000_000_000;
      const { token, expiresAt } = await createSession(db.db, user.userId, t0);
      expect(expiresAt).toBe(t0 + SESSION_TTL_MS);
      expect(token.length).toBeGreaterThanOrEqual(32);

      const stored = await db.db.selectFrom("sessions").selectAll().execute();
      const mine = stored.filter((s) => Number(s.user_id) === user.userId);
      expect(mine).toHaveLength(1);
      expect(mine[0].token_hash).toBe(crypto.createHash("sha256").update(token, "utf8").digest("hex"));
      expect(JSON.stringify(stored)).not.toContain(token);

      expect(await findSession(db.db, token, t0 + 1)).toMatchObject({ userId: user.userId, email: "alice@example.com", access: ["s1", "unregistered"], expiresAt });
      expect(await findSession(db.db, token, expiresAt - 1)).not.toBeNull();
      expect(await findSession(db.db, token, expiresAt)).toBeNull();
      expect(await findSession(db.db, token, expiresAt + 60_000)).toBeNull();
      expect(await findSession(db.db, token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"), t0 + 1)).toBeNull();
      expect(await findSession(db.db, "", t0 + 1)).toBeNull();

      // A second session; creating one after the first expired removes the expired row.
      const second = await createSession(db.db, user.userId, expiresAt + 1);
      const remaining = await db.db.selectFrom("sessions").select("token_hash").execute();
      expect(remaining.map((s) => s.token_hash)).not.toContain(mine[0].token_hash);
      expect(await findSession(db.db, second.token, expiresAt + 2)).not.toBeNull();

      await deleteSession(db.db, second.token);
      expect(await findSession(db.db, second.token, expiresAt + 2)).toBeNull();
      const hashes = (await db.db.selectFrom("sessions").select("token_hash").execute()).map((s) => s.token_hash);
      expect(hashes).not.toContain(crypto.createHash("sha256").update(second.token, "utf8").digest("hex"));
    });
  });
});

describe("dashboard password hashes", () => {
  it("hashes with scrypt and a random salt, and verifies only the right password", async () => {
    const a = await hashPassword("Pässwörd-123");
    const b = await hashPassword("Pässwörd-123");
    expect(a).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain("Pässwörd");
    expect(await verifyPassword("Pässwörd-123", a)).toBe(true);
    expect(await verifyPassword("Pässwörd-123", b)).toBe(true);
    expect(await verifyPassword("Pässwörd-124", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
  });

  it("refuses hashes it did not make", async () => {
    const a = await hashPassword("password-1");
    expect(await verifyPassword("password-1", a.replace(/^scrypt/, "bcrypt"))).toBe(false);
    expect(await verifyPassword("password-1", "password-1")).toBe(false);
    const parts = a.split("$");
    const hash = Buffer.from(parts[5], "base64");
    hash[0] ^= 1;
    parts[5] = hash.toString("base64");
    expect(await verifyPassword("password-1", parts.join("$"))).toBe(false);
  });
});
