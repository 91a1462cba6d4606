import crypto from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { takeToken } from "@/lib/api/rate-limit";
import { isSameOrigin, readCookie } from "@/lib/auth/request-auth";
import { computeSignature, NONCE_PATTERN, signatureMatches } from "@/lib/auth/signature";

describe("request signatures", () => {
  it("is the hex SHA-256 of nonce followed by password", () => {
    const expected = crypto.createHash("sha256").update("nonce-1234567890abcsecret-pw").digest("hex");
    expect(computeSignature("nonce-1234567890abc", "secret-pw")).toBe(expected);
    expect(signatureMatches("nonce-1234567890abc", "secret-pw", expected)).toBe(true);
    expect(signatureMatches("nonce-1234567890abc", "secret-px", expected)).toBe(false);
    expect(signatureMatches("nonce-1234567890abc", "secret-pw", expected.slice(1))).toBe(false);
  });

  it("signs the UTF-8 bytes of non-ASCII passwords", () => {
    const expected = crypto.createHash("sha256").update(Buffer.from("abcdefghijklmnopPässwörd", "utf8")).digest("hex");
    expect(computeSignature("abcdefghijklmnop", "Pässwörd")).toBe(expected);
  });

  it("accepts nonces of 16 to 128 characters of the contract's alphabet", () => {
    expect(NONCE_PATTERN.test("a".repeat(16))).toBe(true);
    expect(NONCE_PATTERN.test("A-z0.9_~:".padEnd(128, "x"))).toBe(true);
    expect(NONCE_PATTERN.test("a".repeat(15))).toBe(false);
    expect(NONCE_PATTERN.test("a".repeat(129))).toBe(false);
    expect(NONCE_PATTERN.test("a".repeat(15) + "/")).toBe(false);
  });
});

describe("same-origin check for cookie requests", () => {
  const req = (headers: Record<string, string>) => new Request("http://app.test/api/chargeback", { method: "POST", headers });
  it("accepts the page's own origin and refuses others", () => {
    expect(isSameOrigin(req({ host: "app.test", origin: "http://app.test" }))).toBe(true);
    expect(isSameOrigin(req({ host: "app.test", origin: "http://evil.test" }))).toBe(false);
    expect(isSameOrigin(req({ host: "app.test", origin: "null" }))).toBe(false);
    expect(isSameOrigin(req({ host: "app.test", "sec-fetch-site": "cross-site" }))).toBe(false);
    expect(isSameOrigin(req({ host: "app.test", "sec-fetch-site": "same-origin" }))).toBe(true);
  });

  it("reads one cookie among several", () => {
    expect(readCookie("a=1; dr_session=abc%3D; b=2", "dr_session")).toBe("abc=");
    expect(readCookie("a=1", "dr_session")).toBeUndefined();
    expect(readCookie("dr_session=%E0%A4%A", "dr_session")).toBeUndefined();
  });
});

describe("per-credential token bucket", () => {
  afterEach(() => {
    delete process.env.RATE_LIMIT_PER_MINUTE;
  });

  it("allows the per-minute limit as a burst, then asks to wait, then refills", () => {
    process.env.RATE_LIMIT_PER_MINUTE = "60";
    const t0 = 1_000_000;
    for (let i = 0; i < 60; i++) expect(takeToken("bucket-a", t0)).toBe(0);
    expect(takeToken("bucket-a", t0)).toBe(1);
    expect(takeToken("bucket-b", t0)).toBe(0);
    expect(takeToken("bucket-a", t0 + 1000)).toBe(0);
  });

  it("is off at 0", () => {
    process.env.RATE_LIMIT_PER_MINUTE = "0";
    for (let i = 0; i < 1000; i++) expect(takeToken("bucket-off")).toBe(0);
  });
});
