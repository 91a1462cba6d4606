import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { databaseTarget } from "@/lib/config";

/**
 * Encryption at rest for shop API passwords. The server must recover a shop's password to check
 * a signature (SHA-256 of nonce + password), so the password is encrypted, not hashed:
 * AES-256-GCM with the shop code as associated data, under a key derived from APP_SECRET or,
 * when that is unset, a random key file the app creates beside the database (never in git).
 */

const FORMAT = "v1";

export function keyFilePath(): string {
  if (process.env.APP_KEY_FILE) return path.resolve(process.env.APP_KEY_FILE);
  const target = databaseTarget();
  const dir = target.kind === "sqlite" && target.file !== ":memory:" ? path.dirname(target.file) : path.resolve("data");
  return path.join(dir, "app.key");
}

let cached: { source: string; key: Buffer } | undefined;

function loadKey(): Buffer {
  const secret = process.env.APP_SECRET;
  const source = secret ? `secret:${secret}` : `file:${keyFilePath()}`;
  if (cached?.source === source) return cached.key;
  let key: Buffer;
  if (secret) {
    if (secret.length < 16) throw new Error("APP_SECRET must be at least 16 characters");
    key = Buffer.from(crypto.hkdfSync("sha256", secret, "dispute-review", "shop-password-encryption", 32));
  } else {
    key = readOrCreateKeyFile(keyFilePath());
  }
  cached = { source, key };
  return key;
}

function readOrCreateKeyFile(file: string): Buffer {
  try {
    return decodeKeyFile(fs.readFileSync(file, "utf8"), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    // "wx": if another process created it first, we read theirs below.
    fs.writeFileSync(file, crypto.randomBytes(32).toString("base64") + "\n", { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  return decodeKeyFile(fs.readFileSync(file, "utf8"), file);
}

function decodeKeyFile(text: string, file: string): Buffer {
  const key = Buffer.from(text.trim(), "base64");
  if (key.length !== 32) throw new Error(`key file ${file} does not hold a 32-byte base64 key`);
  return key;
}

export function encryptSecret(plain: string, context: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", loadKey(), iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return `${FORMAT}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
}

/** Throws when the ciphertext was made under another key or for another context. */
export function decryptSecret(stored: string, context: string): string {
  const [format, payload] = stored.split(":");
  if (format !== FORMAT || !payload) throw new Error("unknown secret format");
  const raw = Buffer.from(payload, "base64");
  const decipher = crypto.createDecipheriv("aes-256-gcm", loadKey(), raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}

/** A 32-byte key for one purpose (an HMAC's, say), derived from the same secret: the same on every instance. */
export function derivedKey(purpose: string): Buffer {
  return Buffer.from(crypto.hkdfSync("sha256", loadKey(), "dispute-review", purpose, 32));
}
