import { z } from "zod";
import { type FieldError, toFieldErrors } from "./search";

/**
 * POST /api/shops, an extension: the shop directory (docs/api.md, "Shop directory"), one entry per
 * shop code of the caller's access list with the merchant and parent merchant its records name
 * (lib/data/aggregates/shop-directory.ts keeps them). Declared once: validation, the TypeScript type and the
 * OpenAPI document.
 */

/** The request takes no fields: the answer is always the caller's whole access list. */
export const shopsRequestSchema = z.strictObject({}).meta({ id: "ShopsRequest", title: "Shop directory request" });

/** One shop of the caller's access list; null where the shop has no records (or no chargeback, for the parent). */
export interface ShopEntry {
  shop_code: string;
  merchant_id: string | null;
  merchant_name: string | null;
  parent_merchant_id: string | null;
  parent_merchant_name: string | null;
}

export const shopEntrySchema = z
  .strictObject({
    shop_code: z.string().describe("A shop code of the caller's access list."),
    merchant_id: z.string().nullable().describe("The merchant id of the shop's latest file (either kind) that carries the shop: its last record there. Null when the shop has no records."),
    merchant_name: z.string().nullable().describe("The merchant name of that same record (null when it is empty or the shop has no records)."),
    parent_merchant_id: z
      .string()
      .nullable()
      .describe("parent_mrch_id of the shop's latest chargeback file that carries the shop (pre-arbitration records have no parent): its last record there. Null without one."),
    parent_merchant_name: z.string().nullable().describe("parent_mrch_name of that same chargeback record."),
  })
  .meta({ id: "ShopEntry", title: "Shop directory entry" }) satisfies z.ZodType<ShopEntry>;

export const shopsResponseSchema = z
  .strictObject({ shops: z.array(shopEntrySchema).describe("One entry per shop code of the caller's access list, in bytewise order of shop_code.") })
  .meta({ id: "ShopDirectory", title: "Shop directory" });

export function parseShopsRequest(body: unknown): { ok: true; request: Record<string, never> } | { ok: false; errors: FieldError[] } {
  const parsed = shopsRequestSchema.safeParse(body);
  return parsed.success ? { ok: true, request: {} } : { ok: false, errors: toFieldErrors(parsed.error) };
}
