import type { Kysely } from "kysely";
import type { Database } from "@/lib/data/connection/schema";
import { findShopCredential } from "./accounts";
import { AuthError } from "./auth-error";
import { spendNonce } from "./nonces";
import { findSession, sessionTokenFrom } from "./sessions";
import { NONCE_PATTERN, SHOP_CODE_PATTERN, SIGNATURE_PATTERN, signatureMatches } from "./signature";

/** Who is calling and which shops they may see (docs/api.md, "Authentication", "Scope", "Dashboard sign-in"). */
export interface Caller {
  /** the rate-limit key: one per credential */
  credential: string;
  access: string[];
}

/** One body for every authentication failure, so a caller cannot learn which shops exist. */
const unauthenticated = () =>
  new AuthError(401, "missing or invalid credentials", { headers: { "WWW-Authenticate": 'Signature realm="api"' } });

// Compared against when the shop is unknown, so an unknown shop costs the same as a wrong signature.
const DUMMY_PASSWORD = "dummy-password-for-unknown-shops";

export async function authenticate(request: Request, db: Kysely<Database>): Promise<Caller> {
  const headers = request.headers;
  const shopCode = headers.get("x-shop-code");
  const nonce = headers.get("x-nonce");
  const signature = headers.get("x-signature");
  if (shopCode !== null || nonce !== null || signature !== null) {
    return authenticateShop(db, shopCode, nonce, signature);
  }
  const token = sessionTokenFrom((name) => readCookie(headers.get("cookie"), name));
  if (token) return authenticateSession(request, db, token);
  throw unauthenticated();
}

async function authenticateShop(db: Kysely<Database>, shopCode: string | null, nonce: string | null, signature: string | null): Promise<Caller> {
  if (!shopCode || !nonce || !signature || !SHOP_CODE_PATTERN.test(shopCode) || !NONCE_PATTERN.test(nonce) || !SIGNATURE_PATTERN.test(signature)) {
    throw unauthenticated();
  }
  const shop = await cachedShopCredential(db, shopCode);
  const valid = signatureMatches(nonce, shop?.password ?? DUMMY_PASSWORD, signature);
  if (!shop || !valid) throw unauthenticated();
  // Only a correctly signed request spends its nonce: others cannot burn a shop's nonces.
  if (!(await spendNonce(db, shop.shopCode, nonce))) throw unauthenticated();
  return { credential: `shop:${shop.shopCode}`, access: shop.access };
}

/**
 * Shop credentials found in the last few seconds, so a busy integration does not cost a look-up
 * and a decryption per request. Only found shops are kept, so a shop added by the admin command
 * signs in at once; the admin command can only add shops, and an entry lives 10 seconds.
 */
const SHOP_CACHE_MS = 10_000;
const SHOP_CACHE_MAX = 10_000;
const shopCache = new Map<string, { shop: NonNullable<Awaited<ReturnType<typeof findShopCredential>>>; until: number }>();

async function cachedShopCredential(db: Kysely<Database>, shopCode: string) {
  const now = Date.now();
  const hit = shopCache.get(shopCode);
  if (hit && hit.until > now) return hit.shop;
  const shop = await findShopCredential(db, shopCode);
  if (shop) {
    if (shopCache.size >= SHOP_CACHE_MAX) shopCache.clear();
    shopCache.set(shopCode, { shop, until: now + SHOP_CACHE_MS });
  } else {
    shopCache.delete(shopCode);
  }
  return shop;
}

async function authenticateSession(request: Request, db: Kysely<Database>, token: string): Promise<Caller> {
  if (!isSameOrigin(request)) {
    throw new AuthError(403, "cookie-authenticated requests must come from this site's own pages", { title: "Cross-origin request refused" });
  }
  const session = await findSession(db, token);
  if (!session) throw unauthenticated();
  return { credential: `user:${session.userId}`, access: session.access };
}

/** A browser names the page's origin on every POST; anything but our own host is refused. */
export function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin !== null) {
    const expected = process.env.APP_ORIGIN;
    if (expected) return origin === expected;
    try {
      return new URL(origin).host === request.headers.get("host");
    } catch {
      return false; // includes the opaque origin "null"
    }
  }
  const site = request.headers.get("sec-fetch-site");
  return site === null || site === "same-origin" || site === "none";
}

export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
