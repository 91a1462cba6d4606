import crypto from "node:crypto";
import { type Kysely, sql } from "kysely";
import { decryptSecret, encryptSecret } from "@/lib/auth/secrets";
import type { Database } from "@/lib/data/connection/schema";

/** Webhook endpoints of shop credentials (docs/api.md, "Webhooks"): `npm run admin -- webhook add|list|remove`. */

export class WebhookError extends Error {
  override name = "WebhookError";
}

const MAX_URL_LENGTH = 2000;
export const ENDPOINT_ID_PATTERN = /^we_[0-9a-f]{20}$/;

/** The URL as it will be called; throws WebhookError when it is not an absolute http(s) URL. */
export function checkEndpointUrl(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
    throw new WebhookError(`the URL must be an absolute http:// or https:// URL, got ${JSON.stringify(raw)}`);
  }
  if (raw.length > MAX_URL_LENGTH || /\s/.test(raw)) throw new WebhookError(`the URL must be at most ${MAX_URL_LENGTH} characters without spaces`);
  if (url.username || url.password) throw new WebhookError("the URL must not hold a user name or password; the signature authenticates the sender");
  return url.toString();
}

/** The context the secret is encrypted for: a ciphertext copied to another endpoint does not decrypt. */
const secretContext = (endpointId: string) => `webhook:${endpointId}`;

export function decryptEndpointSecret(endpoint: { id: string; secret_enc: string }): string {
  return decryptSecret(endpoint.secret_enc, secretContext(endpoint.id));
}

export async function addEndpoint(db: Kysely<Database>, input: { shopCode: string; url: string }): Promise<{ id: string; shopCode: string; url: string; secret: string }> {
  const url = checkEndpointUrl(input.url);
  const shop = await db.selectFrom("shops").select("shop_code").where("shop_code", "=", input.shopCode).executeTakeFirst();
  if (!shop) throw new WebhookError(`no shop credential ${input.shopCode} (add it first: npm run admin -- shop add ${input.shopCode} ...)`);
  const id = `we_${crypto.randomBytes(10).toString("hex")}`;
  // 32 random bytes, base64url: 43 characters after the prefix.
  const secret = `whsec_${crypto.randomBytes(32).toString("base64url")}`;
  await db
    .insertInto("webhook_endpoints")
    .values({ id, shop_code: input.shopCode, url, secret_enc: encryptSecret(secret, secretContext(id)), created_at: Date.now(), removed_at: null })
    .execute();
  return { id, shopCode: input.shopCode, url, secret };
}

/** Stops deliveries to the endpoint: it gets no new events and its pending ones are cancelled. */
export async function removeEndpoint(db: Kysely<Database>, id: string): Promise<void> {
  const found = ENDPOINT_ID_PATTERN.test(id) ? await db.selectFrom("webhook_endpoints").select(["id", "removed_at"]).where("id", "=", id).executeTakeFirst() : undefined;
  if (!found) throw new WebhookError(`no webhook endpoint ${JSON.stringify(id)} (npm run admin -- webhook list shows them)`);
  if (found.removed_at !== null) throw new WebhookError(`webhook endpoint ${id} was removed before`);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable("webhook_endpoints").set({ removed_at: Date.now() }).where("id", "=", id).execute();
    await trx.updateTable("webhook_deliveries").set({ state: "cancelled" }).where("endpoint_id", "=", id).where("state", "=", "pending").execute();
  });
}

export interface EndpointSummary {
  id: string;
  shopCode: string;
  url: string;
  createdAt: number;
  removedAt: number | null;
  /** the latest attempt to deliver to it, if any */
  last: { at: number; status: number | null; error: string | null; delivered: boolean } | null;
  /** failed attempts since its last successful one */
  failuresInRow: number;
  pending: number;
  /** deliveries given up after the last retry */
  failed: number;
  delivered: number;
}

const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

export async function listEndpoints(db: Kysely<Database>): Promise<EndpointSummary[]> {
  const endpoints = await db.selectFrom("webhook_endpoints").selectAll().orderBy("created_at").orderBy("id").execute();
  const counts = await db
    .selectFrom("webhook_deliveries")
    .select(["endpoint_id", "state", (eb) => eb.fn.countAll().as("n")])
    .groupBy(["endpoint_id", "state"])
    .execute();
  const out: EndpointSummary[] = [];
  for (const e of endpoints) {
    const byState = (state: string) => Number(counts.find((c) => c.endpoint_id === e.id && c.state === state)?.n ?? 0);
    const lastSuccess = await db
      .selectFrom("webhook_attempts")
      .select((eb) => eb.fn.max("at").as("at"))
      .where("endpoint_id", "=", e.id)
      .where("status", ">=", 200)
      .where("status", "<", 300)
      .executeTakeFirst();
    const since = Number(lastSuccess?.at ?? -1);
    const failures = await db
      .selectFrom("webhook_attempts")
      .select((eb) => eb.fn.countAll().as("n"))
      .where("endpoint_id", "=", e.id)
      .where("at", ">", since)
      .where((eb) => eb.or([eb("status", "is", null), eb("status", "<", 200), eb("status", ">=", 300)]))
      .executeTakeFirst();
    const last = await db
      .selectFrom("webhook_attempts")
      .select(["at", "status", "error"])
      .where("endpoint_id", "=", e.id)
      .orderBy("at", "desc")
      .orderBy(sql`delivery_id`, "desc")
      .limit(1)
      .executeTakeFirst();
    out.push({
      id: e.id,
      shopCode: e.shop_code,
      url: e.url,
      createdAt: Number(e.created_at),
      removedAt: e.removed_at === null ? null : Number(e.removed_at),
      last: last ? { at: Number(last.at), status: last.status === null ? null : Number(last.status), error: last.error, delivered: isSuccess(last.status === null ? null : Number(last.status)) } : null,
      failuresInRow: Number(failures?.n ?? 0),
      pending: byState("pending"),
      failed: byState("failed"),
      delivered: byState("delivered"),
    });
  }
  return out;
}
