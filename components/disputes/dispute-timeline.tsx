"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { chargebackDeadline, type Deadline, preArbitrationDeadline } from "@/lib/domain/deadlines";
import { KINDS, type RecordKind } from "@/lib/domain/kinds";
import { functionCodeInfo, isReversal } from "@/lib/domain/labels";
import { fetchRecords } from "@/components/shared/api";
import { deadlineText } from "./badges";
import { useDeadlines } from "@/components/shared/deadline-context";
import { formatAmount } from "@/components/shared/format";
import { problemText, retryTransient } from "@/components/shared/problem-text";
import type { DisputeRecord } from "./types";
import { recordKeyOf } from "./use-open-record";

/** One record of a dispute, in the order the dispute went. */
export interface TimelineEntry {
  kind: RecordKind;
  record: Record<string, unknown>;
  key: string;
  date: string;
  label: string;
  functionCode: number | null;
  amount: unknown;
  currency: unknown;
  /** position in import order (the API answered each kind by ID ascending) */
  order: number;
}

function chargebackLabel(r: Record<string, unknown>): string {
  if (isReversal(r.rev_indicator)) return "Reversal";
  const info = functionCodeInfo(r.function_code as number);
  if (!info) return "Chargeback message";
  return `${info.stage === "first_chargeback" ? "First chargeback" : "Arbitration chargeback"}${info.partial ? " (partial)" : ""}`;
}

/**
 * Every record of the dispute in date order (chargeback messages by processing date, cases by
 * case date; a chargeback before a case on the same day; then import order), and its current item
 * as docs/api.md, "Worklist" defines it: the latest case when there is one, else the latest chargeback message.
 */
export function timelineOf(chargebacks: DisputeRecord[], cases: DisputeRecord[]): { entries: TimelineEntry[]; current: TimelineEntry | undefined } {
  const entries: TimelineEntry[] = [
    ...chargebacks.map((rec, order) => {
      const r = rec as Record<string, unknown>;
      return { kind: "chargeback" as const, record: r, key: recordKeyOf("chargeback", rec), date: String(r.chb_proc_date ?? ""), label: chargebackLabel(r), functionCode: (r.function_code as number) ?? null, amount: r.chb_amount, currency: r.chb_ccy, order };
    }),
    ...cases.map((rec, order) => {
      const r = rec as Record<string, unknown>;
      return { kind: "pre_arbitration" as const, record: r, key: recordKeyOf("pre_arbitration", rec), date: String(r.case_date ?? ""), label: `Pre-arbitration case${r.case_stage ? ` (${r.case_stage})` : ""}`, functionCode: null, amount: r.amount, currency: r.ccy, order };
    }),
  ];
  const latest = (kind: RecordKind) =>
    entries.filter((e) => e.kind === kind).reduce<TimelineEntry | undefined>((best, e) => (!best || e.date > best.date || (e.date === best.date && e.order > best.order) ? e : best), undefined);
  const current = latest("pre_arbitration") ?? latest("chargeback");
  entries.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.kind !== b.kind ? (a.kind === "chargeback" ? -1 : 1) : a.order - b.order));
  return { entries, current };
}

/**
 * The dispute around the open record: every record with its acquirer reference number in the
 * user's shops, both kinds, with the current item and its answer-by date marked; each entry opens
 * that record. (An acquirer reference number names one transaction, so within a merchant's shops
 * it names one dispute; the API's records carry no shop code to narrow it further.)
 */
export function DisputeTimeline({ kind, record }: { kind: RecordKind; record: Record<string, unknown> }) {
  const { config, today } = useDeadlines();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  // On the grid of the entry's kind the link keeps the view and only opens that record there.
  const hrefOf = (entry: TimelineEntry) => {
    const params = new URLSearchParams(pathname === KINDS[entry.kind].pagePath ? searchParams.toString() : "");
    params.set("open", entry.key);
    return `${KINDS[entry.kind].pagePath}?${params}`;
  };
  const arn = String(record.acq_ref_nr ?? "");
  const openKey = recordKeyOf(kind, record as DisputeRecord);
  const query = useQuery({
    queryKey: ["timeline", arn],
    enabled: arn.length > 0,
    retry: retryTransient,
    queryFn: async ({ signal }) => {
      const body = { acq_ref_nrs: [arn], per_page: 1000, sortKey: "ID", sortOrder: "asc" };
      const [chargebacks, cases] = await Promise.all([fetchRecords<DisputeRecord>("chargeback", body, signal), fetchRecords<DisputeRecord>("pre_arbitration", body, signal)]);
      return timelineOf(chargebacks.content, cases.content);
    },
  });

  return (
    <section aria-labelledby="timeline-title" data-testid="dispute-timeline">
      <h3 id="timeline-title" className="mb-2 border-b border-slate-200 pb-1 text-sm font-semibold tracking-wide text-slate-800 uppercase">
        Dispute timeline
      </h3>
      {query.isPending ? <p className="text-sm text-slate-700">Loading the dispute…</p> : null}
      {query.isError ? (
        <p role="alert" className="text-sm text-red-900">
          {problemText(query.error, "the dispute").title}{" "}
          <button type="button" className="underline" onClick={() => void query.refetch()}>
            Retry
          </button>
        </p>
      ) : null}
      {query.data ? (
        <ol className="relative space-y-2 border-l-2 border-slate-200 pl-4">
          {query.data.entries.map((entry) => {
            const isCurrent = entry === query.data.current;
            const isOpen = entry.key === openKey && entry.kind === kind;
            const deadline: Deadline | undefined = isCurrent ? (entry.kind === "chargeback" ? chargebackDeadline(entry.record as never, config, today) : preArbitrationDeadline(entry.record as never, config, today)) : undefined;
            return (
              <li key={`${entry.kind}-${entry.key}`} className="relative" data-current={isCurrent || undefined} aria-current={isOpen ? "true" : undefined}>
                <span aria-hidden="true" className={`absolute top-1.5 -left-[1.4rem] h-3 w-3 rounded-full border-2 border-white ${isCurrent ? "bg-blue-700" : "bg-slate-400"}`} />
                <Link
                  href={hrefOf(entry)}
                  className={`block rounded-md border px-3 py-2 text-sm hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 ${isOpen ? "border-blue-400 bg-blue-50" : "border-slate-200"}`}
                >
                  <span className="flex flex-wrap items-baseline justify-between gap-x-3">
                    <span className="font-medium">
                      {entry.label}
                      {entry.functionCode !== null ? <span className="ml-1 font-mono text-xs text-slate-600">{entry.functionCode}</span> : null}
                    </span>
                    <span className="font-mono text-xs">{entry.date}</span>
                  </span>
                  <span className="flex flex-wrap justify-between gap-x-3 text-slate-700">
                    <span>{formatAmount(entry.amount, entry.currency)}</span>
                    <span>
                      {isOpen ? "this record" : ""}
                      {isOpen && isCurrent ? " · " : ""}
                      {isCurrent ? "current item" : ""}
                    </span>
                  </span>
                  {deadline && deadline.status !== "not_applicable" ? (
                    <span className="mt-1 block font-medium">
                      Answer by {deadline.answerBy}
                      {` (${deadlineText(deadline)})`}
                    </span>
                  ) : null}
                </Link>
              </li>
            );
          })}
        </ol>
      ) : null}
    </section>
  );
}
