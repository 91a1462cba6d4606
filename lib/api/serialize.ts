import { FIELDS_BY_KIND, type FieldDef, type RecordKind } from "@/lib/domain/fields";
import { formatMinor } from "@/lib/domain/money";

/**
 * JSON text of the page envelope, written field by field: JSON.stringify cannot write 120.50 as
 * a number with two decimals, and amounts must never pass through a float on the way out.
 */

function valueJson(def: FieldDef, value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (def.kind) {
    case "amount":
      return formatMinor(value as number | string | bigint);
    case "integer":
      return BigInt(value as number | string).toString();
    case "docIndicator":
      // 0 and 1 are numbers; the space the acquirer may deliver stays a string.
      return value === "0" || value === "1" ? (value as string) : JSON.stringify(value);
    default:
      return JSON.stringify(value);
  }
}

export function recordJson(kind: RecordKind, row: Record<string, unknown>): string {
  const fields = FIELDS_BY_KIND[kind];
  let out = "{";
  for (let i = 0; i < fields.length; i++) {
    const def = fields[i];
    out += `${i ? "," : ""}"${def.name}":${valueJson(def, row[def.name])}`;
  }
  return out + "}";
}

export function pageJson(kind: RecordKind, rows: Record<string, unknown>[], totalPages: number, totalElements: number): string {
  return `{"content":[${rows.map((row) => recordJson(kind, row)).join(",")}],"totalPages":${totalPages},"totalElements":${totalElements}}`;
}
