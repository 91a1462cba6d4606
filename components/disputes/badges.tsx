"use client";

import type { Deadline } from "@/lib/domain/deadlines";
import { hasDocuments, isReversal } from "@/lib/domain/labels";

const base = "inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap";

export function ReversalBadge({ value }: { value: unknown }) {
  if (!isReversal(value)) return <span className="text-slate-500">—</span>;
  return <span className={`${base} bg-violet-100 text-violet-900`}>Reversal</span>;
}

export function DocumentsBadge({ value }: { value: unknown }) {
  if (!hasDocuments(value)) return <span className="text-slate-500">—</span>;
  return <span className={`${base} bg-sky-100 text-sky-900`}>Docs</span>;
}

export function DecisionBadge({ value }: { value: unknown }) {
  if (value === null || value === undefined || value === "") return <span className={`${base} bg-amber-100 text-amber-900`}>No decision</span>;
  return <span className={`${base} bg-emerald-100 text-emerald-900`}>{String(value)}</span>;
}

/** "5 days left", "due today", "2 days overdue". */
export function daysLeftText(daysLeft: number): string {
  if (daysLeft === 0) return "due today";
  if (daysLeft > 0) return `${daysLeft} day${daysLeft === 1 ? "" : "s"} left`;
  return `${-daysLeft} day${daysLeft === -1 ? "" : "s"} overdue`;
}

/** What a deadline says beside its answer-by date: an expired dispute is never "N days overdue". */
export function deadlineText(deadline: Deadline): string {
  if (deadline.status === "answered") return "answered";
  if (deadline.status === "expired") return `expired on ${deadline.expiresOn}`;
  return daysLeftText(deadline.daysLeft!);
}

const DEADLINE_STYLES: Record<Deadline["status"], string> = {
  expired: "bg-slate-200 text-slate-800",
  overdue: "bg-red-100 text-red-900",
  due_soon: "bg-amber-100 text-amber-900",
  open: "bg-slate-100 text-slate-800",
  answered: "bg-emerald-100 text-emerald-900",
  not_applicable: "",
};

export function DeadlineBadge({ deadline }: { deadline: Deadline }) {
  if (deadline.status === "not_applicable" || !deadline.answerBy) return <span className="text-slate-500">—</span>;
  const text = deadlineText(deadline);
  return (
    <span className="inline-flex items-center gap-2">
      <span className="tabular-nums">{deadline.answerBy}</span>
      <span className={`${base} ${DEADLINE_STYLES[deadline.status]}`}>{text}</span>
    </span>
  );
}
