import type { RecordKind } from "@/lib/domain/fields";

/**
 * One read statement of the data module, as it crosses to a reader thread: compiled SQL, its
 * bound values, and whether its rows come back as the API's JSON array of records (`json`).
 */
export interface ReadStatement {
  sql: string;
  parameters: readonly unknown[];
  json?: RecordKind;
}

export type Row = Record<string, unknown>;

/** Rows of a statement, or their JSON text when the statement asked for it. */
export type ReadResult = Row[] | string;
