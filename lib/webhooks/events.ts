import crypto from "node:crypto";
import type { Kysely } from "kysely";
import { parseAccessList } from "@/lib/auth/access";
import type { Database } from "@/lib/data/connection/schema";
import { kindMap, type RecordKind } from "@/lib/domain/kinds";

/**
 * The events of a committed file (docs/api.md, "Webhooks"), written by the import inside the file's own
 * transaction: a refused or killed import leaves none, a committed file always has them.
 */

export const EVENT_TYPES = kindMap("eventType");

export interface WebhookEvent {
  id: string;
  type: (typeof EVENT_TYPES)[RecordKind];
  /** unix seconds */
  created: number;
  data: { file_date: string; shop_codes: string[]; count: number };
}

const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

/**
 * One event per active endpoint whose shop credential sees records of the file: its visible shops
 * with records in the file (bytewise order) and their count. `perShop`: the file's records per shop.
 */
export async function addFileEvents(trx: Kysely<Database>, kind: RecordKind, fileDate: string, perShop: ReadonlyMap<string, number>): Promise<number> {
  if (perShop.size === 0) return 0;
  const endpoints = await trx
    .selectFrom("webhook_endpoints")
    .innerJoin("shops", "shops.shop_code", "webhook_endpoints.shop_code")
    .select(["webhook_endpoints.id", "shops.access_list"])
    .where("webhook_endpoints.removed_at", "is", null)
    .orderBy("webhook_endpoints.created_at")
    .orderBy("webhook_endpoints.id")
    .execute();
  const now = Date.now();
  const rows = [];
  for (const endpoint of endpoints) {
    const shops = [...new Set(parseAccessList(endpoint.access_list))].filter((code) => perShop.has(code)).sort(bytewise);
    if (shops.length === 0) continue;
    const event: WebhookEvent = {
      id: `evt_${crypto.randomBytes(16).toString("hex")}`,
      type: EVENT_TYPES[kind],
      created: Math.floor(now / 1000),
      data: { file_date: fileDate, shop_codes: shops, count: shops.reduce((n, code) => n + (perShop.get(code) ?? 0), 0) },
    };
    rows.push({
      event_id: event.id,
      endpoint_id: endpoint.id,
      type: event.type,
      body: JSON.stringify(event),
      created_at: now,
      state: "pending" as const,
      attempts: 0,
      next_attempt_at: now,
      claimed_until: null,
      claim_token: null,
    });
  }
  if (rows.length > 0) await trx.insertInto("webhook_deliveries").values(rows).execute();
  return rows.length;
}
