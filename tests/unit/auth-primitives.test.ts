import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
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

