import { KINDS, RECORD_KINDS, type RecordKind } from "@/lib/domain/kinds";

/** Where a grid keeps its column choice in the browser (and a saved view restores it). */
export const gridColumnsKey = (kind: RecordKind) => `disputes.columns.${kind}.v1`;

/** The column storage of a dashboard page, when it has columns to choose. */
export function columnsKeyOfPage(page: string): string | undefined {
  const kind = RECORD_KINDS.find((k) => KINDS[k].pagePath === page);
  return kind ? gridColumnsKey(kind) : undefined;
}
