"use client";

import * as Dialog from "@radix-ui/react-dialog";
import { useRef } from "react";
import { chargebackDeadline, type Deadline, preArbitrationDeadline, STAGE_LABELS } from "@/lib/domain/deadlines";
import type { RecordKind } from "@/lib/domain/fields";
import { cardTypeName, functionCodeLabel, isReversal } from "@/lib/domain/labels";
import { reasonCodeLabel } from "@/lib/domain/reason-codes";
import { deadlineText } from "./badges";
import { CopyButton } from "./copy-button";
import { DisputeTimeline } from "./dispute-timeline";
import { useDeadlines } from "@/components/shared/deadline-context";
import { formatAmount } from "@/components/shared/format";
import { COPYABLE, fieldValue, groupsFor } from "./record-fields";
import type { DrawerState } from "./types";

interface RecordDrawerProps {
  kind: RecordKind;
  state: DrawerState;
  onClose: () => void;
  /** where focus goes when the drawer has closed (the row it was opened from) */
  onAfterClose: () => void;
  onShowRelated?: (acqRefNr: string) => void;
  onStep?: (delta: -1 | 1) => void;
  canStep?: { prev: boolean; next: boolean };
}

/**
 * Everything about one record, grouped, with plain meanings and the answer-by date. A Radix
 * dialog: focus is trapped inside, Escape closes it, and focus goes back to the row.
 */
export function RecordDrawer({ kind, state, onClose, onAfterClose, onShowRelated, onStep, canStep }: RecordDrawerProps) {
  const open = state.status !== "closed";
  const contentRef = useRef<HTMLDivElement>(null);
  const record = state.status === "ready" ? (state.record as Record<string, unknown>) : undefined;
  const title = record ? drawerTitle(kind, record) : kind === "chargeback" ? "Chargeback" : "Pre-arbitration case";
  return (
    <Dialog.Root open={open} onOpenChange={(next) => (next ? undefined : onClose())}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-slate-900/40" />
        <Dialog.Content
          ref={contentRef}
          data-testid="record-drawer"
          // The drawer itself takes focus, so a screen reader starts at its title rather than
          // at whichever button happens to come first.
          onOpenAutoFocus={(event) => {
            event.preventDefault();
            contentRef.current?.focus();
          }}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            onAfterClose();
          }}
          className="fixed inset-y-0 right-0 z-50 flex w-full max-w-2xl flex-col bg-white shadow-xl focus:outline-none"
        >
          <header className="flex items-start justify-between gap-3 border-b border-slate-200 px-5 py-4">
            <div className="min-w-0">
              <Dialog.Title className="text-lg font-semibold break-all">{title}</Dialog.Title>
              <Dialog.Description className="text-sm text-slate-700">
                {record ? drawerSubtitle(kind, record) : state.status === "loading" ? "Loading the record…" : "Record details"}
              </Dialog.Description>
            </div>
            <div className="flex shrink-0 items-center gap-1">
              {onStep ? (
                <>
                  <button type="button" onClick={() => onStep(-1)} disabled={!canStep?.prev} className={smallButton} aria-label="Previous record on this page">
                    <span aria-hidden="true">↑</span>
                  </button>
                  <button type="button" onClick={() => onStep(1)} disabled={!canStep?.next} className={smallButton} aria-label="Next record on this page">
                    <span aria-hidden="true">↓</span>
                  </button>
                </>
              ) : null}
              <Dialog.Close className={smallButton} aria-label="Close details">
                <span aria-hidden="true">✕</span>
              </Dialog.Close>
            </div>
          </header>
          <div className="flex-1 overflow-y-auto px-5 py-4">
            {state.status === "loading" ? <DrawerSkeleton /> : null}
            {state.status === "missing" ? (
              <p role="status" className="rounded-md border border-slate-300 bg-slate-50 p-3 text-sm">
                This record was not found among your shops. The link may name a record of a shop you cannot see, or a mistyped address.
              </p>
            ) : null}
            {state.status === "error" ? (
              <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
                <p className="font-semibold">The record could not be loaded.</p>
                <p>{state.message}</p>
                <button type="button" onClick={state.retry} className="mt-2 rounded-md bg-red-800 px-3 py-1 text-white">
                  Retry
                </button>
              </div>
            ) : null}
            {record ? <RecordBody kind={kind} record={record} onShowRelated={onShowRelated} /> : null}
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

const smallButton =
  "inline-flex h-8 min-w-8 items-center justify-center rounded-md border border-slate-300 bg-white px-2 text-slate-800 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 disabled:opacity-40";

function drawerTitle(kind: RecordKind, r: Record<string, unknown>): string {
  if (kind === "chargeback") return `${isReversal(r.rev_indicator) ? "Chargeback reversal" : "Chargeback"} ${r.acq_ref_nr}`;
  return `Pre-arbitration ${r.acq_ref_nr}`;
}

function drawerSubtitle(kind: RecordKind, r: Record<string, unknown>): string {
  if (kind === "chargeback") {
    return `${reasonCodeLabel(r.reason_code as number, r.card_type as string)} · ${functionCodeLabel(r.function_code as number)} · ${formatAmount(r.chb_amount, r.chb_ccy)}`;
  }
  return `${String(r.case_stage ?? "")} · ${formatAmount(r.amount, r.ccy)} · case date ${r.case_date}`;
}

function RecordBody({ kind, record, onShowRelated }: { kind: RecordKind; record: Record<string, unknown>; onShowRelated?: (arn: string) => void }) {
  const { config, today } = useDeadlines();
  const deadline = kind === "chargeback" ? chargebackDeadline(record as never, config, today) : preArbitrationDeadline(record as never, config, today);
  return (
    <div className="space-y-5">
      <DeadlinePanel deadline={deadline} />
      {kind === "chargeback" && isReversal(record.rev_indicator) ? (
        <p className="rounded-md border border-violet-200 bg-violet-50 p-3 text-sm text-violet-950">
          This is a reversal: a credit back to the acquirer that undoes an earlier chargeback message for the same transaction. It is a money movement, not a final outcome of the dispute.
        </p>
      ) : null}
      {onShowRelated && typeof record.acq_ref_nr === "string" ? (
        <button
          type="button"
          onClick={() => onShowRelated(record.acq_ref_nr as string)}
          className="text-left text-sm text-blue-800 underline hover:text-blue-950 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
        >
          Show every {kind === "chargeback" ? "chargeback message" : "case"} for this acquirer reference number
        </button>
      ) : null}
      <DisputeTimeline kind={kind} record={record} />
      {groupsFor(kind).map((group) => (
        <section key={group.title} aria-labelledby={`group-${group.title}`}>
          <h3 id={`group-${group.title}`} className="mb-2 border-b border-slate-200 pb-1 text-sm font-semibold tracking-wide text-slate-800 uppercase">
            {group.title}
          </h3>
          <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-[12rem_1fr]">
            {group.fields.map((def) => {
              const { text, extra } = fieldValue(def, record);
              const raw = record[def.name];
              return (
                <div key={def.name} className="contents">
                  <dt className="text-sm text-slate-700">
                    {def.label}
                    <span className="block font-mono text-[11px] text-slate-600">{def.name}</span>
                  </dt>
                  <dd className="flex min-w-0 flex-wrap items-center gap-2 text-sm break-words text-slate-900">
                    <span className={COPYABLE.has(def.name) ? "font-mono" : undefined} data-field={def.name}>
                      {text}
                    </span>
                    {extra}
                    {COPYABLE.has(def.name) && typeof raw === "string" && raw ? <CopyButton value={raw} label={def.label} /> : null}
                  </dd>
                </div>
              );
            })}
          </dl>
        </section>
      ))}
    </div>
  );
}

function DeadlinePanel({ deadline }: { deadline: Deadline }) {
  if (deadline.status === "not_applicable") {
    return (
      <div className="rounded-md border border-slate-200 bg-slate-50 p-3 text-sm" data-testid="deadline">
        <p className="font-semibold">No answer due</p>
        <p className="text-slate-700">Because {deadline.reason}.</p>
      </div>
    );
  }
  const tone =
    deadline.status === "overdue" ? "border-red-300 bg-red-50" : deadline.status === "due_soon" ? "border-amber-300 bg-amber-50" : deadline.status === "answered" ? "border-emerald-300 bg-emerald-50" : "border-slate-300 bg-slate-50";
  return (
    <div className={`rounded-md border p-3 text-sm ${tone}`} data-testid="deadline">
      <p className="text-base font-semibold">
        Answer by {deadline.answerBy} — {deadlineText(deadline)}
      </p>
      <p className="text-slate-800">
        {deadline.baseDate} ({deadline.stage === "pre_arbitration" ? "case date" : "processing date"}) + {deadline.windowDays} days to answer the {STAGE_LABELS[deadline.stage!]} under {cardTypeName(deadline.scheme)} rules{deadline.schemeInferred ? " (scheme from the card number)" : ""}: the acquirer&apos;s window is {deadline.acquirerDays} days, the scheme&apos;s limit{" "}
        {deadline.schemeLimitDays} days.
        {deadline.status === "overdue" ? ` The acquirer may still take an answer until ${deadline.expiresOn}, when the scheme's limit passes.` : ""}
        {deadline.status === "expired" ? " The scheme's limit has passed: the dispute can no longer be answered through the acquirer." : ""}
      </p>
    </div>
  );
}

function DrawerSkeleton() {
  return (
    <div aria-hidden="true" className="space-y-3">
      {Array.from({ length: 8 }, (_, i) => (
        <div key={i} className="h-4 animate-pulse rounded bg-slate-200" style={{ width: `${40 + ((i * 17) % 55)}%` }} />
      ))}
    </div>
  );
}
