import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "@/lib/auth/passwords";

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
