import { formatAmount } from "@/components/shared/format";
import type { ChargebackGroup, PreArbitrationGroup, Summary } from "./overview-api";
import { nf, pct } from "./palette";

/** A count against the previous period of the same length. */
function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? "no change" : "new in this period";
  const ratio = (now - before) / before;
  return `${ratio > 0 ? "+" : ""}${pct.format(ratio)} against the previous period`;
}

function Tile({ label, value, sub, testId }: { label: string; value: string; sub: string[]; testId: string }) {
  return (
    <div className="rounded-md border border-slate-300 bg-white p-3" data-testid={testId}>
      <p className="text-sm text-slate-700">{label}</p>
      <p className="text-2xl font-semibold tabular-nums">{value}</p>
      {sub.map((line) => (
        <p key={line} className="text-xs text-slate-700 tabular-nums">
          {line}
        </p>
      ))}
    </div>
  );
}

function amountsBy<T extends { currency: string }>(groups: { amounts: T[] }[] | undefined, pick: (a: T) => number): Map<string, number> {
  const out = new Map<string, number>();
  for (const g of groups ?? []) for (const a of g.amounts) out.set(a.currency, (out.get(a.currency) ?? 0) + pick(a));
  return out;
}

/** One line per currency: amounts are never added across currencies. */
function perCurrency(now: Map<string, number>, before: Map<string, number>): string[] {
  const currencies = [...new Set([...now.keys(), ...before.keys()])].sort();
  if (!currencies.length) return ["no amounts"];
  return currencies.map((c) => `${formatAmount(now.get(c) ?? 0, c)} (${change(now.get(c) ?? 0, before.get(c) ?? 0)})`);
}

/** The four tiles at the top: chargebacks, amounts disputed, reversals and pre-arbitration cases. */
export function Headlines({ cbNow, cbBefore, paNow, paBefore }: { cbNow?: Summary<ChargebackGroup>; cbBefore?: Summary<ChargebackGroup>; paNow?: Summary<PreArbitrationGroup>; paBefore?: Summary<PreArbitrationGroup> }) {
  if (!cbNow || !cbBefore || !paNow || !paBefore) return <div className="h-28 animate-pulse rounded-md bg-slate-200" aria-label="Loading the headline figures" />;
  const [now, before] = [cbNow.groups[0], cbBefore.groups[0]];
  const chargebacks = now.count - now.reversals;
  const chargebacksBefore = before.count - before.reversals;
  return (
    <section aria-label="Headline figures" className="grid grid-cols-1 gap-3 sm:grid-cols-2 xl:grid-cols-4">
      <Tile testId="headline-chargebacks" label="Chargebacks" value={nf.format(chargebacks)} sub={[change(chargebacks, chargebacksBefore)]} />
      <Tile testId="headline-disputed" label="Amount disputed" value={`${amountsBy(cbNow.groups, (a) => a.chb_amount).size} currencies`} sub={perCurrency(amountsBy(cbNow.groups, (a) => a.chb_amount), amountsBy(cbBefore.groups, (a) => a.chb_amount))} />
      <Tile
        testId="headline-reversals"
        label="Reversals and amount reversed"
        value={nf.format(now.reversals)}
        sub={[change(now.reversals, before.reversals), ...perCurrency(amountsBy(cbNow.groups, (a) => a.reversal_amount), amountsBy(cbBefore.groups, (a) => a.reversal_amount))]}
      />
      <Tile testId="headline-cases" label="Pre-arbitration cases" value={nf.format(paNow.groups[0].count)} sub={[change(paNow.groups[0].count, paBefore.groups[0].count), ...perCurrency(amountsBy(paNow.groups, (a) => a.amount), amountsBy(paBefore.groups, (a) => a.amount))]} />
    </section>
  );
}
