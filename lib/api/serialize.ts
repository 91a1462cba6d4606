import { contentJson, recordJson } from "@/lib/data/connection/record-json";
import type { RecordKind } from "@/lib/domain/fields";

/**
 * The page envelope (docs/api.md, "Response body") around a `contentJson` array, whose records the
 * data module wrote (lib/data/connection/record-json.ts). Around bytes it is the envelope's three parts, sent
 * one after the other: no copy of a page of up to 1.5 MB.
 */
export function envelopeJson(content: string, totalPages: number, totalElements: number): string;
export function envelopeJson(content: string | Uint8Array, totalPages: number, totalElements: number): string | readonly Uint8Array[];
export function envelopeJson(content: string | Uint8Array, totalPages: number, totalElements: number): string | readonly Uint8Array[] {
  const tail = `,"totalPages":${totalPages},"totalElements":${totalElements}}`;
  if (typeof content === "string") return `{"content":${content}${tail}`;
  return [ENVELOPE_HEAD, content, Buffer.from(tail, "latin1")];
}

const ENVELOPE_HEAD = Buffer.from('{"content":', "latin1");

export function pageJson(kind: RecordKind, rows: Record<string, unknown>[], totalPages: number, totalElements: number): string {
  return envelopeJson(contentJson(kind, rows), totalPages, totalElements);
}

/** The worklist's content (docs/api.md, "Worklist"): each item's record written exactly as the searches write it. */
export function worklistContentJson(items: readonly { kind: RecordKind; answerBy: string; status: string; record: Record<string, unknown> }[]): string {
  return `[${items.map((item) => `{"kind":${JSON.stringify(item.kind)},"answer_by":${JSON.stringify(item.answerBy)},"status":${JSON.stringify(item.status)},"record":${recordJson(item.kind, item.record)}}`).join(",")}]`;
}
