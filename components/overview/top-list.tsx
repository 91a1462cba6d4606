import Link from "next/link";
import { ChartFigure, ChartLoading, NumbersTable } from "./chart-figure";
import { BarChart } from "./charts";
import type { ChargebackGroup, Summary } from "./overview-api";
import { COLORS, nf } from "./palette";

/** The ten shops or merchants with the most chargebacks; each name links to the grid filtered to it. */
export function TopList({ title, id, summary, dimension, link }: { title: string; id: string; summary?: Summary<ChargebackGroup>; dimension: string; link: (value: string) => string }) {
  if (!summary) return <ChartLoading id={id} title={title} />;
  const top = summary.groups
    .map((g) => ({ value: String(g.key[dimension]), count: g.count - g.reversals }))
    .filter((t) => t.count > 0)
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1))
    .slice(0, 10);
  return (
    <ChartFigure
      id={id}
      title={title}
      summary={top.length ? `${top[0].value} has the most (${nf.format(top[0].count)}). Each name opens the chargeback grid filtered to it.` : "No chargebacks in this period."}
      chart={
        <BarChart horizontal labelWidth={130} data={top.map((t) => ({ label: t.value, values: { count: t.count } }))} series={[{ key: "count", name: "Chargebacks", color: COLORS.topList }]} />
      }
      table={
        <NumbersTable
          caption={title}
          head={[dimension === "shop_code" ? "Shop" : "Merchant", "Chargebacks"]}
          rows={top.map((t) => [
            <Link key={t.value} href={link(t.value)} className="text-blue-800 underline">
              {t.value}
            </Link>,
            nf.format(t.count),
          ])}
        />
      }
    />
  );
}
