import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findShopCredential, verifyUserLogin } from "@/lib/auth/accounts";
import { openDatabase } from "@/lib/data/connection/db";
import { runCli } from "../helpers/cli";
import { backends, dropCreatedDatabases, tempDir } from "../helpers/db";

/** `npm run demo -- --no-serve`: prepares a fresh database, and a second run changes nothing. */

afterAll(() => dropCreatedDatabases());

describe.each(backends)("npm run demo -- --no-serve on $name", (backend) => {
  it("loads the demo files and creates the demo credentials, and runs again without loading twice", { timeout: 180_000 }, async () => {
    const url = await backend.create();
    const dir = tempDir("disputes-demo-");
    const secret = backend.name === "postgres" ? "demo-test-secret-0123456789" : "";
    const env = { DATABASE_URL: url, DEMO_FILES_DIR: path.join(dir, "files"), APP_SECRET: secret, APP_KEY_FILE: secret ? "" : path.join(dir, "app.key") };

    const first = await runCli("demo.ts", ["--no-serve", "--records", "300"], env);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/files imported \(300 records\), 0 skipped/);
    expect(first.stdout).toContain("created user merchant@demo.test");
    expect(first.stdout).toContain("created API credential demo-shop");
    expect(first.stdout).toContain("X-Signature: $SIGNATURE");
    expect(fs.existsSync(path.join(dir, "files", "demo.json"))).toBe(true);

    const second = await runCli("demo.ts", ["--no-serve", "--records", "300"], env);
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/: 0 files imported \(0 records\), \d+ skipped as already imported/);
    expect(second.stdout).not.toMatch(/created|kept the existing/);

    const saved = { APP_SECRET: process.env.APP_SECRET, APP_KEY_FILE: process.env.APP_KEY_FILE };
    process.env.APP_SECRET = env.APP_SECRET;
    process.env.APP_KEY_FILE = env.APP_KEY_FILE;
    const handle = await openDatabase(url);
    try {
      const count = async (table: "chargebacks" | "pre_arbitrations") =>
        Number((await handle.db.selectFrom(table).select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
      expect((await count("chargebacks")) + (await count("pre_arbitrations"))).toBe(300);

      const merchant = await verifyUserLogin(handle.db, "merchant@demo.test", "demo-password");
      const analyst = await verifyUserLogin(handle.db, "analyst@demo.test", "demo-password");
      expect(merchant?.access).toContain("demo-shop");
      expect(analyst!.access.length).toBeGreaterThan(merchant!.access.length);
      const shopsInData = (await handle.db.selectFrom("chargebacks").select("shop_code").distinct().execute()).map((r) => r.shop_code);
      for (const shop of shopsInData) expect(analyst!.access).toContain(shop);

      const credential = await findShopCredential(handle.db, "demo-shop");
      expect(credential?.password).toBe("demo-shop-password");
      expect(credential?.access[0]).toBe("demo-shop");
      expect(first.stdout).toContain(`access ${credential!.access.join(", ")}`);
    } finally {
      await handle.close();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
