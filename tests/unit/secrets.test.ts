import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret, keyFilePath } from "@/lib/auth/secrets";
import { tempDir } from "../helpers/db";

const ENV_KEYS = ["APP_SECRET", "APP_KEY_FILE", "DATABASE_URL"] as const;
let saved: Record<string, string | undefined>;

beforeEach(() => {
  saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  for (const k of ENV_KEYS) delete process.env[k];
});

afterEach(() => {
  for (const k of ENV_KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

/** Flips one bit of the decoded payload at `index` (0-11 IV, 12-27 tag, 28- body). */
function tamper(stored: string, index: number): string {
  const [format, payload] = stored.split(":");
  const raw = Buffer.from(payload, "base64");
  raw[index] ^= 0x01;
  return `${format}:${raw.toString("base64")}`;
}

describe("shop password encryption with APP_SECRET", () => {
  beforeEach(() => {
    process.env.APP_SECRET = "unit-test-secret-0123456789";
    // Must not be touched while APP_SECRET is set.
    process.env.APP_KEY_FILE = path.join(tempDir(), "never", "app.key");
  });

  it("round-trips, and never holds the plain text", () => {
    const stored = encryptSecret("s3cret-Pässwörd", "shop-1");
    expect(stored).toMatch(/^v1:[A-Za-z0-9+/]+=*$/);
    expect(stored).not.toContain("s3cret");
    expect(decryptSecret(stored, "shop-1")).toBe("s3cret-Pässwörd");
    expect(fs.existsSync(process.env.APP_KEY_FILE!)).toBe(false);
  });

  it("uses a fresh IV each time", () => {
    const a = encryptSecret("same password", "shop-1");
    const b = encryptSecret("same password", "shop-1");
    expect(a).not.toBe(b);
    expect(decryptSecret(a, "shop-1")).toBe(decryptSecret(b, "shop-1"));
  });

  it("fails for another context (a ciphertext moved to another shop)", () => {
    const stored = encryptSecret("password-1", "shop-1");
    expect(() => decryptSecret(stored, "shop-2")).toThrow();
  });

  it("fails for a tampered IV, tag or body, and for foreign formats", () => {
    const stored = encryptSecret("password-1", "shop-1");
    for (const index of [0, 12, 28]) expect(() => decryptSecret(tamper(stored, index), "shop-1")).toThrow();
    expect(() => decryptSecret(stored.replace(/^v1:/, "v2:"), "shop-1")).toThrow(/unknown secret format/);
    expect(() => decryptSecret("password-1", "shop-1")).toThrow();
  });

  it("fails under another APP_SECRET and refuses a short one", () => {
    const stored = encryptSecret("password-1", "shop-1");
    process.env.APP_SECRET = "another-secret-0123456789";
    expect(() => decryptSecret(stored, "shop-1")).toThrow();
    process.env.APP_SECRET = "unit-test-secret-0123456789";
    expect(decryptSecret(stored, "shop-1")).toBe("password-1");
    process.env.APP_SECRET = "too-short";
    expect(() => encryptSecret("password-1", "shop-1")).toThrow(/at least 16/);
  });
});

describe("shop password encryption with a key file", () => {
  it("creates the key file with mode 0600 and reuses it", () => {
    const file = path.join(tempDir(), "keys", "app.key");
    process.env.APP_KEY_FILE = file;
    const stored = encryptSecret("password-1", "shop-1");
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe("600");
    const key = fs.readFileSync(file, "utf8");
    expect(Buffer.from(key.trim(), "base64")).toHaveLength(32);

    // Another key file is another key ...
    process.env.APP_KEY_FILE = path.join(tempDir(), "app.key");
    expect(() => decryptSecret(stored, "shop-1")).toThrow();
    // ... and the first one is read back from disk, unchanged.
    process.env.APP_KEY_FILE = file;
    expect(decryptSecret(stored, "shop-1")).toBe("password-1");
    encryptSecret("password-2", "shop-2");
    expect(fs.readFileSync(file, "utf8")).toBe(key);
  });

  it("lives beside the SQLite database when APP_KEY_FILE is unset", () => {
    const dir = tempDir();
    process.env.DATABASE_URL = `file:${path.join(dir, "db", "disputes.sqlite")}`;
    expect(keyFilePath()).toBe(path.join(dir, "db", "app.key"));
    const stored = encryptSecret("password-1", "shop-1");
    expect(fs.existsSync(path.join(dir, "db", "app.key"))).toBe(true);
    expect(decryptSecret(stored, "shop-1")).toBe("password-1");
  });

  it("refuses a key file that does not hold a 32-byte key", () => {
    const file = path.join(tempDir(), "app.key");
    fs.writeFileSync(file, "c2hvcnQ=\n", { mode: 0o600 });
    process.env.APP_KEY_FILE = file;
    expect(() => encryptSecret("password-1", "shop-1")).toThrow(/32-byte/);
  });
});
