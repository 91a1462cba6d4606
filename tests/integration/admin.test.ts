import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findShopCredential, verifyUserLogin } from "@/lib/auth/accounts";
import { decryptSecret } from "@/lib/auth/secrets";
import { openDatabase } from "@/lib/data/connection/db";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";

/** docs/api.md, "Admin command" through the real command, on every backend of this run. */

// PostgreSQL has no folder for a key file: the command and this test share APP_SECRET instead.
const PG_SECRET = "admin-test-secret-0123456789";

afterAll(() => dropCreatedDatabases());

describe.each(backends)("npm run admin on $name", (backend) => {
  let url: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    url = await backend.create();
    env = backend.name === "postgres" ? { DATABASE_URL: url, APP_SECRET: PG_SECRET, APP_KEY_FILE: "" } : { DATABASE_URL: url, APP_SECRET: "", APP_KEY_FILE: "" };
  });

  const admin = (args: string[], stdin?: string) => runCli("admin.ts", args, env, stdin);

  async function withDb<T>(fn: (db: Awaited<ReturnType<typeof openDatabase>>["db"]) => Promise<T>): Promise<T> {
    const handle = await openDatabase(url);
    try {
      return await fn(handle.db);
    } finally {
      await handle.close();
    }
  }

  /** Runs `fn` with the key the command used: APP_SECRET, or the key file beside the SQLite file. */
  async function withCommandKey<T>(fn: () => T | Promise<T>): Promise<T> {
    const saved = { APP_SECRET: process.env.APP_SECRET, APP_KEY_FILE: process.env.APP_KEY_FILE };
    if (backend.name === "postgres") {
      process.env.APP_SECRET = PG_SECRET;
      delete process.env.APP_KEY_FILE;
    } else {
      delete process.env.APP_SECRET;
      process.env.APP_KEY_FILE = path.join(path.dirname(url.slice("file:".length)), "app.key");
    }
    try {
      return await fn();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }

  const shopRow = (code: string) => withDb((db) => db.selectFrom("shops").selectAll().where("shop_code", "=", code).executeTakeFirst());

  /** A refusal: exit 1, one line on stderr naming the problem, nothing on stdout, no stack trace. */
  function expectRefused(result: { code: number; stdout: string; stderr: string }, message: RegExp) {
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^admin: /);
    expect(lines[0]).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at |Error:/);
  }

  /** Independent refusals run side by side: each command start costs a second. */
  async function expectAllRefused(cases: [args: string[], message: RegExp, stdin?: string][]) {
    const results = await Promise.all(cases.map(([args, , stdin]) => admin(args, stdin)));
    results.forEach((result, i) => expectRefused(result, cases[i][1]));
  }

  describe("shop add", () => {
    it("creates a credential whose access list defaults to the shop itself; the password is stored encrypted", async () => {
      const result = await admin(["shop", "add", "alpha", "--password", "alpha-password-1"]);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout.trim()).toBe("shop alpha added; access: alpha");

      const row = await shopRow("alpha");
      expect(JSON.parse(row!.access_list)).toEqual(["alpha"]);
      expect(row!.password_enc).not.toContain("alpha-password-1");
      expect(JSON.stringify(row)).not.toContain("alpha-password-1");
      expect(row!.password_enc).toMatch(/^v1:/);
      expect(await withCommandKey(() => decryptSecret(row!.password_enc, "alpha"))).toBe("alpha-password-1");
      const credential = await withDb((db) => withCommandKey(() => findShopCredential(db, "alpha")));
      expect(credential).toEqual({ shopCode: "alpha", password: "alpha-password-1", access: ["alpha"] });
      expect(await withDb((db) => findShopCredential(db, "nobody"))).toBeNull();

      if (backend.name === "sqlite") {
        const keyFile = path.join(path.dirname(url.slice("file:".length)), "app.key");
        expect((fs.statSync(keyFile).mode & 0o777).toString(8)).toBe("600");
      }
    });

    it("always includes the shop itself, first, in a given access list, without duplicates", async () => {
      const a = await admin(["shop", "add", "beta", "--password", "beta-password-1", "--access", "x-shop,beta,y-shop,x-shop"]);
      expect(a.code).toBe(0);
      expect(a.stdout.trim()).toBe("shop beta added; access: beta, x-shop, y-shop");
      const b = await admin(["shop", "add", "gamma", "--password=gamma-password-1", "--access=x-shop, Y-Shop"]);
      expect(b.code).toBe(0);
      expect(JSON.parse((await shopRow("beta"))!.access_list)).toEqual(["beta", "x-shop", "y-shop"]);
      // Shops named in an access list need no credential of their own; codes are case-sensitive.
      expect(JSON.parse((await shopRow("gamma"))!.access_list)).toEqual(["gamma", "x-shop", "Y-Shop"]);
    });

    it("reads the password from the first line of standard input with --password-stdin", async () => {
      const a = await admin(["shop", "add", "delta", "--password-stdin"], "stdin-password-1\nsecond line\n");
      expect(a.code).toBe(0);
      const b = await admin(["shop", "add", "epsilon", "--password-stdin", "--access", "alpha"], "crlf-password-1\r\n");
      expect(b.code).toBe(0);
      const c = await admin(["shop", "add", "zeta", "--password-stdin"], "no-newline-password");
      expect(c.code).toBe(0);
      const passwords = await withDb((db) =>
        withCommandKey(() => Promise.all(["delta", "epsilon", "zeta"].map(async (code) => (await findShopCredential(db, code))?.password))),
      );
      expect(passwords).toEqual(["stdin-password-1", "crlf-password-1", "no-newline-password"]);
      expectRefused(await admin(["shop", "add", "eta", "--password-stdin"], ""), /at least 8 characters/);
      expectRefused(await admin(["shop", "add", "eta", "--password", "eta-password-1", "--password-stdin"], "eta-password-1\n"), /either --password or --password-stdin/);
      expect(await shopRow("eta")).toBeUndefined();
    });

    it("refuses a duplicate and keeps the first credential", async () => {
      expectRefused(await admin(["shop", "add", "alpha", "--password", "another-password"]), /shop alpha already exists/);
      const credential = await withDb((db) => withCommandKey(() => findShopCredential(db, "alpha")));
      expect(credential?.password).toBe("alpha-password-1");
    });

    it("refuses a password under 8 characters and accepts exactly 8", async () => {
      expectRefused(await admin(["shop", "add", "short", "--password", "1234567"]), /password must be at least 8 characters/);
      expect(await shopRow("short")).toBeUndefined();
      expect((await admin(["shop", "add", "short", "--password", "12345678"])).code).toBe(0);
    });

    it("refuses malformed shop codes and access lists", async () => {
      await expectAllRefused([
        [["shop", "add", "with space", "--password", "password-123"], /invalid shop code "with space"/],
        [["shop", "add", "a,b", "--password", "password-123"], /invalid shop code "a,b"/],
        [["shop", "add", "x".repeat(101), "--password", "password-123"], /invalid shop code/],
        [["shop", "add", "theta", "--password", "password-123", "--access", "a,,b"], /invalid shop code ""/],
        [["shop", "add", "theta", "--password", "password-123", "--access", ""], /--access needs at least one shop code/],
        [["shop", "add", "--password", "password-123"], /takes exactly one shop code/],
        [["shop", "add", "theta", "iota", "--password", "password-123"], /takes exactly one shop code/],
        [["shop", "add", "theta"], /needs --password <pw> or --password-stdin/],
      ]);
      expect(await shopRow("theta")).toBeUndefined();
    });
  });

  describe("commands and options", () => {
    it("refuses unknown commands", async () => {
      await expectAllRefused([
        [["shop", "remove", "alpha"], /unknown command "shop remove"/],
        [["frobnicate"], /unknown command "frobnicate"/],
        [["shop"], /unknown command "shop"/],
      ]);
    });

    it("refuses unknown and misplaced options, and options without their value", async () => {
      await expectAllRefused([
        [["shop", "add", "theta", "--password", "password-123", "--bogus"], /unknown option --bogus/],
        [["shop", "add", "theta", "-p", "password-123"], /unknown option -p/],
        [["shop", "add", "theta", "--password"], /--password needs a value/],
        [["shop", "add", "theta", "--password", "password-123", "--password", "password-456"], /--password is given twice/],
        [["shop", "add", "theta", "--password-stdin=yes"], /--password-stdin takes no value/, "password-123\n"],
        [["shop", "list", "--access", "alpha"], /--access does not apply to shop list/],
        [["user", "list", "extra"], /user list takes no arguments/],
      ]);
      expect(await shopRow("theta")).toBeUndefined();
    });

    it("prints usage: for help on stdout with status 0, without arguments on stderr with status 1", async () => {
      const help = await admin(["help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^usage: npm run admin -- <command>/);
      for (const line of ["shop add <shop_code> --password <pw> [--access <code>,<code>...]", "shop list", "user add <email> --password <pw> --access <code>,<code>...", "user list", "--password-stdin"]) {
        expect(help.stdout).toContain(line);
      }
      const none = await admin([]);
      expect(none.code).toBe(1);
      expect(none.stdout).toBe("");
      expect(none.stderr).toBe(help.stdout);
    });

    it("opens no database for bad input", async () => {
      if (backend.name !== "sqlite") return;
      const file = path.join(tempDir(), "untouched.sqlite");
      const bad = [["shop", "remove"], ["shop", "add", "s", "--password", "short"], ["user", "add", "u@example.test", "--password", "password-123"]];
      const results = await Promise.all(bad.map((args) => runCli("admin.ts", args, { ...env, DATABASE_URL: `file:${file}` })));
      expect(results.map((r) => r.code)).toEqual([1, 1, 1]);
      expect(fs.existsSync(file)).toBe(false);
    });
  });

  describe("shop list", () => {
    it("lists every shop and its access list in an aligned table, never a password or ciphertext", async () => {
      const result = await admin(["shop", "list"]);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      const lines = result.stdout.trimEnd().split("\n");
      expect(lines[0]).toMatch(/^SHOP CODE\s+ACCESS$/);
      const column = lines[0].indexOf("ACCESS");
      const rows = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, column).trim(), l.slice(column)]));
      expect(rows).toEqual({
        alpha: "alpha",
        beta: "beta, x-shop, y-shop",
        delta: "delta",
        epsilon: "epsilon, alpha",
        gamma: "gamma, x-shop, Y-Shop",
        short: "short",
        zeta: "zeta",
      });
      for (const secret of ["alpha-password-1", "beta-password-1", "gamma-password-1", "stdin-password-1", "crlf-password-1", "12345678", "v1:"]) {
        expect(result.stdout).not.toContain(secret);
      }
    });
  });

  describe("users", () => {
    it("adds a user with a lower-cased e-mail and a scrypt hash", async () => {
      const result = await admin(["user", "add", "  Ann.Example@Example.TEST ", "--password", "ann-password-1", "--access", "alpha,beta,alpha"]);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout.trim()).toBe("user ann.example@example.test added; access: alpha, beta");
      const row = await withDb((db) => db.selectFrom("users").selectAll().where("email", "=", "ann.example@example.test").executeTakeFirst());
      expect(row?.password_hash).toMatch(/^scrypt\$/);
      expect(JSON.stringify(row)).not.toContain("ann-password-1");
      expect(JSON.parse(row!.access_list)).toEqual(["alpha", "beta"]);
      const login = await withDb((db) => verifyUserLogin(db, "ANN.EXAMPLE@example.test", "ann-password-1"));
      expect(login).toMatchObject({ email: "ann.example@example.test", access: ["alpha", "beta"] });
    });

    it("takes the password from standard input too", async () => {
      const result = await admin(["user", "add", "bob@example.test", "--password-stdin", "--access", "gamma"], "bob-password-1\n");
      expect(result.code).toBe(0);
      expect(await withDb((db) => verifyUserLogin(db, "bob@example.test", "bob-password-1"))).not.toBeNull();
    });

    it("refuses duplicates (whatever the case), bad e-mails, short passwords and a missing or empty access list", async () => {
      await expectAllRefused([
        [["user", "add", "ANN.example@example.test", "--password", "other-password", "--access", "alpha"], /user ann\.example@example\.test already exists/],
        [["user", "add", "not-an-email", "--password", "password-123", "--access", "alpha"], /invalid e-mail address "not-an-email"/],
        [["user", "add", "carl@example.test", "--password", "1234567", "--access", "alpha"], /at least 8 characters/],
        [["user", "add", "carl@example.test", "--password", "password-123"], /user add needs --access/],
        [["user", "add", "carl@example.test", "--password", "password-123", "--access", " , "], /--access needs at least one shop code/],
      ]);
      const users = await withDb((db) => db.selectFrom("users").select("email").orderBy("email").execute());
      expect(users.map((u) => u.email)).toEqual(["ann.example@example.test", "bob@example.test"]);
    });

    it("lists users, their access lists and mail settings, never a password or hash", async () => {
      const result = await admin(["user", "list"]);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      const rows = result.stdout.trimEnd().split("\n").map((l) => l.split(/ {2,}/));
      expect(rows).toEqual([
        ["E-MAIL", "ACCESS", "DIGEST", "AT", "ZONE", "ALERTS"],
        // A new user's defaults (docs/mail.md, "Settings").
        ["ann.example@example.test", "alpha, beta", "daily", "08:00", "UTC", "off"],
        ["bob@example.test", "gamma", "daily", "08:00", "UTC", "off"],
      ]);
      expect(result.stdout).not.toMatch(/scrypt|password/);
    });

    it("changes a user's mail settings; a bad value or an unknown address changes nothing", async () => {
      const changed = await admin(["user", "mail", "BOB@example.test", "--digest", "weekly", "--at", "7:05", "--zone", "europe/berlin", "--alerts", "on"]);
      expect(changed).toMatchObject({ code: 0, stderr: "" });
      expect(changed.stdout).toMatch(/bob@example\.test: digest weekly at 07:05 Europe\/Berlin; alerts on/);
      const refused = await Promise.all(
        (
          [
            [["user", "mail", "bob@example.test", "--digest", "hourly"], /--digest must be one of daily, weekly, off/],
            [["user", "mail", "bob@example.test", "--at", "24:00"], /--at must be a 24-hour time/],
            [["user", "mail", "bob@example.test", "--at", "8"], /--at must be a 24-hour time/],
            [["user", "mail", "bob@example.test", "--zone", "Mars/Olympus"], /--zone must be an IANA time zone/],
            [["user", "mail", "bob@example.test", "--zone", "+01:00"], /--zone must be an IANA time zone/],
            [["user", "mail", "bob@example.test", "--alerts", "yes"], /--alerts must be on or off/],
            [["user", "mail", "nobody@example.test", "--alerts", "off"], /no user nobody@example\.test/],
            [["user", "mail", "bob@example.test", "--password", "x"], /--password does not apply to user mail/],
            [["user", "mail"], /user mail takes exactly one e-mail address/],
          ] as const
        ).map(async ([args, message]) => {
          const result = await admin([...args]);
          expect(result.code, args.join(" ")).toBe(1);
          expect(result.stderr).toMatch(message);
        }),
      );
      expect(refused).toHaveLength(9);
      const rows = (await admin(["user", "list"])).stdout.trimEnd().split("\n").map((l) => l.split(/ {2,}/));
      expect(rows.find((r) => r[0] === "bob@example.test")).toEqual(["bob@example.test", "gamma", "weekly", "07:05", "Europe/Berlin", "on"]);
      expect(rows.find((r) => r[0] === "ann.example@example.test")).toEqual(["ann.example@example.test", "alpha, beta", "daily", "08:00", "UTC", "off"]);
    });

    it("runs no digest and lists no mail without SMTP_URL", async () => {
      const run = await admin(["digest", "run", "--at", "2030-01-07T08:00:00Z"]);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.stdout).toMatch(/SMTP_URL is not set/);
      expect(await admin(["mail", "list"])).toMatchObject({ code: 0, stdout: "no messages\n" });
      const bad = await admin(["digest", "run", "--at", "tomorrow"]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/--at must be an ISO 8601 instant/);
    });
  });
});
