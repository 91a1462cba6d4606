import type { ChargebackFieldName, PreArbitrationFieldName } from "@/lib/domain/fields";

/** Records as the API returns them (docs/api.md, "Response body"): every field present, null where empty. */
export type JsonValue = string | number | null;
export type ChargebackRecord = { [K in ChargebackFieldName]: JsonValue };
export type PreArbitrationRecord = { [K in PreArbitrationFieldName]: JsonValue };
export type DisputeRecord = ChargebackRecord | PreArbitrationRecord;

/**
 * What the record drawer shows. Here rather than in record-drawer.tsx: use-open-record.ts makes it,
 * and the drawer imports (through the timeline) use-open-record.ts, so the drawer cannot be its home.
 */
export type DrawerState =
  | { status: "closed" }
  | { status: "loading" }
  | { status: "missing" }
  | { status: "error"; message: string; retry: () => void }
  | { status: "ready"; record: DisputeRecord };

/** A row of the grid: the record plus its stable key (see lib/url-state/record-key.ts). */
export type Keyed<T> = T & { __key: string };

