import { compareBytes, type Kind, type ModelRecord, type ModelRequest, modelSearch } from "./fixture";

/**
 * An independent model of the summaries of docs/api.md, "Summaries": plain JS over the fixture's records, exact
 * sums in BigInt minor units, the answer's exact text. Shared by the summary and overview tests.
 */

export type SummaryRequest = Omit<ModelRequest, "page" | "per_page" | "sortKey" | "sortOrder"> & { group_by?: string[] | null };

// ---- The model of the summaries -----------------------------------------------------------

export function keyValue(rec: ModelRecord, dim: string): string | number {
  if (dim === "month") return (rec.file_date as string).slice(0, 7);
  // The extension dimension: whether the issuer sent documents (doc_indicator 1).
  if (dim === "documents") return String(rec.doc_indicator) === "1" ? "yes" : "no";
  if (dim === "shop_code") return rec.__shop;
  return rec[dim] as string | number;
}

export const compareValues = (a: string | number, b: string | number) => (typeof a === "number" && typeof b === "number" ? a - b : compareBytes(a, b));

/** "12.50" -> 1250n */
const minor = (text: string) => {
  const [whole, cents] = text.split(".");
  return BigInt(whole) * 100n + BigInt(cents);
};
const decimal = (value: bigint) => {
  const abs = value < 0n ? -value : value;
  return `${value < 0n ? "-" : ""}${abs / 100n}.${String(abs % 100n).padStart(2, "0")}`;
};

/** The exact response text docs/api.md, "Summaries" asks for. */
export function modelSummary(kind: Kind, records: ModelRecord[], req: SummaryRequest, access: readonly string[]): string {
  const { group_by: groupByRaw, ...filters } = req;
  const groupBy = groupByRaw ?? [];
  const selected = modelSearch(records, { ...filters, page: 0, per_page: records.length + 1 }, access).content;
  const groups = new Map<string, { key: (string | number)[]; records: ModelRecord[] }>();
  for (const rec of selected) {
    const key = groupBy.map((dim) => keyValue(rec, dim));
    const id = JSON.stringify(key);
    if (!groups.has(id)) groups.set(id, { key, records: [] });
    groups.get(id)!.records.push(rec);
  }
  if (groupBy.length === 0 && groups.size === 0) groups.set("[]", { key: [], records: [] });
  const ordered = [...groups.values()].sort((a, b) => {
    for (let i = 0; i < groupBy.length; i++) {
      const c = compareValues(a.key[i], b.key[i]);
      if (c !== 0) return c;
    }
    return 0;
  });
  const ccyField = kind === "chargeback" ? "chb_ccy" : "ccy";
  const out = ordered.map(({ key, records: recs }) => {
    const keyText = groupBy.map((dim, i) => `${JSON.stringify(dim)}:${JSON.stringify(key[i])}`).join(",");
    const byCcy = new Map<string, { amount: bigint; reversal: bigint }>();
    let reversals = 0;
    for (const rec of recs) {
      const ccy = rec[ccyField] as string;
      const sums = byCcy.get(ccy) ?? { amount: 0n, reversal: 0n };
      byCcy.set(ccy, sums);
      if (kind === "chargeback" && rec.rev_indicator === "R") {
        reversals++;
        sums.reversal += minor(rec.chb_amount as string);
      } else {
        sums.amount += minor((kind === "chargeback" ? rec.chb_amount : rec.amount) as string);
      }
    }
    const amounts = [...byCcy.entries()]
      .sort(([a], [b]) => compareBytes(a, b))
      .map(([ccy, s]) =>
        kind === "chargeback"
          ? `{"currency":${JSON.stringify(ccy)},"chb_amount":${decimal(s.amount)},"reversal_amount":${decimal(s.reversal)}}`
          : `{"currency":${JSON.stringify(ccy)},"amount":${decimal(s.amount)}}`,
      );
    const counts = kind === "chargeback" ? `"count":${recs.length},"reversals":${reversals}` : `"count":${recs.length}`;
    return `{"key":{${keyText}},${counts},"amounts":[${amounts.join(",")}]}`;
  });
  return `{"groups":[${out.join(",")}],"totalElements":${selected.length}}`;
}

