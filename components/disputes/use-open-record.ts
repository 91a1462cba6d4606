"use client";

import { useQuery } from "@tanstack/react-query";
import { type RefObject, useEffect, useRef } from "react";
import type { DataTableHandle } from "@/components/data-table/data-table";
import { FIELDS_BY_KIND, type RecordKind } from "@/lib/domain/fields";
import { recordFingerprint, type RecordKey, serializeRecordKey } from "@/lib/url-state/record-key";
import { fetchRecords } from "@/components/shared/api";
import { problemText } from "@/components/shared/problem-text";
import type { DisputeRecord, DrawerState } from "./types";

const FIELD_NAMES = Object.fromEntries(Object.entries(FIELDS_BY_KIND).map(([kind, fields]) => [kind, fields.map((d) => d.name)])) as Record<RecordKind, string[]>;

/** The stable key of a record, as the URL names it (lib/url-state/record-key.ts). */
export function recordKeyOf(kind: RecordKind, record: DisputeRecord): string {
  const r = record as Record<string, unknown>;
  return serializeRecordKey({ fileDate: String(r.file_date), acqRefNr: String(r.acq_ref_nr), fingerprint: recordFingerprint(r, FIELD_NAMES[kind]) });
}

/** Finds one record by its key alone, inside the user's scope, whatever page or filter is active. */
export async function fetchRecordByKey(kind: RecordKind, key: RecordKey, signal?: AbortSignal): Promise<DisputeRecord | null> {
  const page = await fetchRecords<DisputeRecord>(kind, { acq_ref_nrs: [key.acqRefNr], file_date_from: key.fileDate, file_date_to: key.fileDate, per_page: 1000 }, signal);
  const wanted = serializeRecordKey(key);
  return page.content.find((r) => recordKeyOf(kind, r) === wanted) ?? null;
}

/** How a view's rows name their records: the record key and the kind, and the record itself. */
export interface OpenableRow {
  kind: RecordKind;
  key: string;
  record: DisputeRecord;
}

/**
 * The record the URL opens in the drawer: from the page on screen when it is there, fetched by its
 * key when it is not (a copied link). Keeps which row opened it, so focus returns there on close.
 * A grid's rows are all of one kind; the worklist's are of both, so `describe` says each row's.
 */
export function useOpenRecord<Row>(opts: {
  /** the open record's kind (null: nothing open) */
  kind: RecordKind | null;
  open: RecordKey | null;
  rows: Row[];
  describe: (row: Row) => OpenableRow;
  pageSettled: boolean;
  /** writes the open record (a row, or null to close) into the URL */
  setOpen: (row: OpenableRow | null) => void;
  tableHandle: RefObject<DataTableHandle | null>;
}) {
  const { kind, open, rows, describe, pageSettled, setOpen, tableHandle } = opts;
  const lastOpenedIndex = useRef<number | null>(null);
  const openKey = open && kind ? serializeRecordKey(open) : null;
  const openIndex = openKey
    ? rows.findIndex((r) => {
        const d = describe(r);
        return d.kind === kind && d.key === openKey;
      })
    : -1;
  const onPage = openIndex >= 0;

  const recordQuery = useQuery({
    queryKey: ["record", kind, openKey],
    enabled: Boolean(openKey) && !onPage && pageSettled,
    queryFn: ({ signal }) => fetchRecordByKey(kind!, open!, signal),
    retry: false,
  });

  // A drawer opened from a link still hands focus back to its row when it closes.
  useEffect(() => {
    if (onPage) lastOpenedIndex.current = openIndex;
  }, [onPage, openIndex]);

  let drawer: DrawerState = { status: "closed" };
  if (openKey) {
    if (onPage) drawer = { status: "ready", record: describe(rows[openIndex]).record };
    else if (recordQuery.isError) drawer = { status: "error", message: problemText(recordQuery.error).title, retry: () => void recordQuery.refetch() };
    else if (recordQuery.data) drawer = { status: "ready", record: recordQuery.data };
    else if (recordQuery.data === null) drawer = { status: "missing" };
    else drawer = { status: "loading" };
  }

  const openRow = (index: number) => {
    lastOpenedIndex.current = index;
    setOpen(describe(rows[index]));
  };

  return {
    drawer,
    openIndex,
    onPage,
    openRow,
    close: () => setOpen(null),
    focusAfterClose: () => {
      const index = lastOpenedIndex.current ?? (openIndex >= 0 ? openIndex : null);
      if (index !== null && index < rows.length) tableHandle.current?.focusRow(index);
    },
    step: onPage
      ? (delta: number) => {
          const next = openIndex + delta;
          if (next >= 0 && next < rows.length) openRow(next);
        }
      : undefined,
    canStep: { prev: openIndex > 0, next: onPage && openIndex < rows.length - 1 },
  };
}
