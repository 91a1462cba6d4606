/**
 * The request classes the benchmark measures (docs/performance.md), for both endpoints. Pre-arbitration has no FILE_DATE sort key:
 * where the chargeback class sorts by FILE_DATE, its pre-arbitration twin sorts by ID.
 */
import { KINDS as KIND_NAMES, RECORD_KINDS, type RecordKind } from "@/lib/domain/kinds";
import type { SortKey, SortOrder } from "@/lib/schemas/search";
import type { Credential } from "./http";
import type { Selection } from "./sql";

export type CredentialName = "all" | "one" | "three";

export interface BenchClass {
  /** e.g. "chargeback/b" */
  id: string;
  kind: RecordKind;
  letter: string;
  name: string;
  credential: CredentialName;
  body: Record<string, unknown>;
  /** the same selection as SQL, for the second floor */
  selection: Selection;
}

export interface ClassContext {
  /** every shop there is, in code order */
  shops: readonly string[];
  credentials: Record<CredentialName, Credential>;
  /** the shop named by class b */
  busyShop: string;
  /** the three shops named by class c */
  threeShops: readonly string[];
  /** 50 real acquirer reference numbers per kind */
  acqRefNrs: Record<RecordKind, readonly string[]>;
  /** the first file date of a range from which to the end holds about half the records, per kind */
  halfFrom: Record<RecordKind, string>;
  /** the first and last day of the 30-day range of class b */
  recentFrom: string;
  end: string;
}

export const KINDS = RECORD_KINDS;

export const apiPath = (kind: RecordKind) => KIND_NAMES[kind].apiPath;

export function benchClasses(ctx: ClassContext): BenchClass[] {
  const out: BenchClass[] = [];
  for (const kind of KINDS) {
    const dateKey: SortKey = kind === "chargeback" ? "FILE_DATE" : "ID";
    const add = (letter: string, name: string, credential: CredentialName, body: Record<string, unknown>) => {
      const access = ctx.credentials[credential].access;
      const named = body.shop_codes as string[] | undefined;
      const scope = named ?? access;
      out.push({
        id: `${kind}/${letter}`,
        kind,
        letter,
        name,
        credential,
        body,
        selection: {
          kind,
          scope,
          everyShop: ctx.shops.every((s) => scope.includes(s)),
          from: body.file_date_from as string | undefined,
          to: body.file_date_to as string | undefined,
          acqRefNrs: body.acq_ref_nrs as string[] | undefined,
          sortKey: (body.sortKey as SortKey | undefined) ?? "ID",
          sortOrder: (body.sortOrder as SortOrder | undefined) ?? "asc",
          page: (body.page as number | undefined) ?? 0,
          perPage: (body.per_page as number | undefined) ?? 10,
        },
      });
    };
    add("a", "default page", "all", {});
    add("b", `one shop, 30 days, ${dateKey} desc, 100 a page`, "all", {
      shop_codes: [ctx.busyShop],
      file_date_from: ctx.recentFrom,
      file_date_to: ctx.end,
      sortKey: dateKey,
      sortOrder: "desc",
      per_page: 100,
    });
    add("c", "three shops, 1000 a page, PAYMENT_ORDER_NR", "all", { shop_codes: [...ctx.threeShops], per_page: 1000, sortKey: "PAYMENT_ORDER_NR" });
    add("d", "50 acquirer reference numbers", "all", { acq_ref_nrs: [...ctx.acqRefNrs[kind]] });
    add("e", "page 5000 of 10", "all", { page: 5000, per_page: 10 });
    add("f", "half the file dates, MERCHANT_ID desc", "all", {
      file_date_from: ctx.halfFrom[kind],
      file_date_to: ctx.end,
      sortKey: "MERCHANT_ID",
      sortOrder: "desc",
    });
    add("g1", "default page, 1-shop credential", "one", {});
    add("g3", "default page, 3-shop credential", "three", {});
  }
  return out;
}
