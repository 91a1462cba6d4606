/**
 * The two kinds of record and every name that differs by kind, declared once: the unions, the
 * tables, the API and page paths, titles, webhook event types and export file names are all read
 * from here. A third kind would be one entry below (and its field list in fields.ts).
 */

export const RECORD_KINDS = ["chargeback", "pre_arbitration"] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export interface KindNames {
  /** the table of its records */
  table: string;
  /** PostgreSQL: the table of its records' stored JSON */
  jsonTable: string;
  /** its search endpoint (docs/api.md, "Endpoints"); the summary is this plus "/summary" */
  apiPath: string;
  /** its dashboard grid */
  pagePath: string;
  /** the grid's title, the worklist's kind filter */
  title: string;
  /** the navigation's short label and the page's title */
  navLabel: string;
  /** one record, as a row of the worklist says it */
  singular: string;
  /** webhook event type (docs/api.md, "Webhooks") */
  eventType: string;
  /** the CSV export's file name before its time stamp */
  exportName: string;
}

export const KINDS = {
  chargeback: {
    table: "chargebacks",
    jsonTable: "chargebacks_json",
    apiPath: "/api/chargeback",
    pagePath: "/chargebacks",
    title: "Chargebacks",
    navLabel: "Chargebacks",
    singular: "Chargeback",
    eventType: "chargebacks.imported",
    exportName: "chargebacks",
  },
  pre_arbitration: {
    table: "pre_arbitrations",
    jsonTable: "pre_arbitrations_json",
    apiPath: "/api/pre_arbitration",
    pagePath: "/pre-arbitration",
    title: "Pre-arbitration cases",
    navLabel: "Pre-arbitration",
    singular: "Pre-arbitration",
    eventType: "pre_arbitrations.imported",
    exportName: "pre-arbitration",
  },
} as const satisfies Record<RecordKind, KindNames>;

/** One name of every kind, keeping its literal type: kindMap("table").chargeback is "chargebacks". */
export function kindMap<N extends keyof KindNames>(name: N): { [K in RecordKind]: (typeof KINDS)[K][N] } {
  return Object.fromEntries(RECORD_KINDS.map((kind) => [kind, KINDS[kind][name]])) as { [K in RecordKind]: (typeof KINDS)[K][N] };
}

/** The kind a name stands for, own keys only ("__proto__" names no kind). */
export function kindOf(name: string): RecordKind | undefined {
  return Object.hasOwn(KINDS, name) ? (name as RecordKind) : undefined;
}
