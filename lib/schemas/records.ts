import { z } from "zod";
import {
  CARD_TYPES,
  CHARGEBACK_DECISIONS,
  CHARGEBACK_FIELDS,
  PRE_ARBITRATION_DECISIONS,
  PRE_ARBITRATION_FIELDS,
  type FieldDef,
} from "@/lib/domain/fields";

/** Response shapes, derived from the field definitions; they document what the serializer writes. */

function fieldSchema(def: FieldDef): z.ZodType {
  switch (def.kind) {
    case "amount":
      return z.number().meta({ description: `${def.label}. Exact decimal written with exactly two decimals, e.g. 120.50.`, examples: [120.5] });
    case "integer":
      return z.int().describe(def.label);
    case "date":
      return z.string().meta({ format: "date", description: `${def.label} (YYYY-MM-DD)` });
    case "trDate":
      return z.string().meta({ description: `${def.label} (YYYY-MM-DD; "0000-00-00" when the issuer did not provide it)` });
    case "datetime":
      return z.string().meta({ description: `${def.label} (YYYY-MM-DD HH:MM:SS)`, examples: ["2026-03-01 14:05:09"] });
    case "docIndicator":
      return z.union([z.literal(0), z.literal(1), z.literal(" ")]).describe(`${def.label}: 0 or " " none provided, 1 provided by the issuer`);
    case "revIndicator":
      return z.union([z.literal(" "), z.literal("R")]).describe(`${def.label}: "R" for a chargeback reversal, null or " " otherwise`);
    case "cardType":
      return z.enum(CARD_TYPES).describe(def.label);
    case "chbDecision":
      return z.enum(CHARGEBACK_DECISIONS).describe(def.label);
    case "preArbDecision":
      return z.enum(PRE_ARBITRATION_DECISIONS).describe(def.label);
    case "card":
      return z.string().meta({ description: `${def.label}, masked as 123456%1234` });
    case "currency":
      return z.string().meta({ description: `${def.label} (ISO 4217 alpha code)`, examples: ["EUR"] });
    default:
      return z.string().describe(def.maxLength ? `${def.label} (at most ${def.maxLength} characters)` : def.label);
  }
}

function recordSchema(fields: readonly FieldDef[], id: string) {
  const shape: Record<string, z.ZodType> = {};
  for (const def of fields) shape[def.name] = def.required ? fieldSchema(def) : fieldSchema(def).nullable();
  return z.strictObject(shape).meta({ id });
}

export const chargebackRecordSchema = recordSchema(CHARGEBACK_FIELDS, "Chargeback");
export const preArbitrationRecordSchema = recordSchema(PRE_ARBITRATION_FIELDS, "PreArbitration");

const page = (record: z.ZodType, id: string) =>
  z
    .strictObject({
      content: z.array(record).describe("Records of the requested page"),
      totalPages: z.int().describe("ceil(totalElements / per_page); 0 when nothing matches"),
      totalElements: z.int().describe("Number of records matching the request inside the caller's scope"),
    })
    .meta({ id });

export const chargebackPageSchema = page(chargebackRecordSchema, "ChargebackPage");
export const preArbitrationPageSchema = page(preArbitrationRecordSchema, "PreArbitrationPage");

export const problemSchema = z
  .object({
    type: z.string().describe("URI reference identifying the problem type"),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    errors: z
      .array(
        z.object({
          field: z.string().describe('JSON path of the offending value, e.g. "shop_codes[2]"; an unknown field\'s own name; "" for the body itself'),
          message: z.string(),
        }),
      )
      .optional()
      .describe("Present on 400 only"),
  })
  .meta({ id: "Problem", description: "RFC 9457 problem details" });
