import crypto from "node:crypto";

/** docs/api.md, "Authentication": X-Signature = lowercase hex SHA-256 of the UTF-8 bytes of X-Nonce + password. */

export const NONCE_PATTERN = /^[A-Za-z0-9._~:-]{16,128}$/;
export const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;
// No spaces, commas (access lists are comma-separated) or control characters (they reach terminals).
export const SHOP_CODE_PATTERN = /^[^\s,\p{Cc}]{1,100}$/u;

export function computeSignature(nonce: string, password: string): string {
  return crypto.createHash("sha256").update(nonce + password, "utf8").digest("hex");
}

/** Constant time in the length of the expected value; both sides are 64 hex characters. */
export function signatureMatches(nonce: string, password: string, signature: string): boolean {
  const expected = Buffer.from(computeSignature(nonce, password), "utf8");
  const actual = Buffer.from(signature, "utf8");
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}
