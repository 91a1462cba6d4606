import { ECP_FLOORS } from "@/lib/domain/periods";
import { ChartFigure, ChartLoading, NumbersTable } from "./chart-figure";
import { BarChart } from "./charts";
import type { EcpMonth } from "./overview-api";
import { COLORS, nf } from "./palette";

/**
 * Mastercard's Excessive Chargeback Program looks at each merchant's Mastercard chargebacks in a
 * month against two count floors (100 and 300). Its ratio also needs the merchant's sales counts,
 * which acquirer files do not carry, so this says counts only (worked out by the server from a
 * summary by month, merchant and scheme).
 */
export function ExcessiveChargebacks({ months }: { months?: EcpMonth[] }) {
  const title = "Mastercard Excessive Chargeback Program: counts per month";
  if (!months) return <ChartLoading id="ecp" title={title} />;
  const rows = months.map((m) => ({ month: m.month, top: m.top_merchant === null ? undefined : { merchant: m.top_merchant, count: m.top_count }, over100: m.at_excessive, over300: m.at_high_excessive }));
  const flagged = rows.filter((r) => r.over100 > 0);
  return (
    <ChartFigure
      id="ecp"
      title={title}
      summary={`${flagged.length ? `${flagged.length} of ${rows.length} months had a merchant at or over ${ECP_FLOORS.excessive} Mastercard chargebacks.` : `No merchant reached ${ECP_FLOORS.excessive} Mastercard chargebacks in a month.`} The floors are ${ECP_FLOORS.excessive} and ${ECP_FLOORS.highExcessive} a month. Counts only: the program's ratio also needs the merchant's sales counts, which acquirer files do not carry.`}
      chart={
        <BarChart
          data={rows.map((r) => ({ label: r.month, values: { most: r.top?.count ?? 0 } }))}
          series={[{ key: "most", name: "Most Mastercard chargebacks of one merchant", color: COLORS.mastercard }]}
          lines={[
            { value: ECP_FLOORS.excessive, color: COLORS.mastercard },
            { value: ECP_FLOORS.highExcessive, color: COLORS.alarm },
          ]}
          minMax={ECP_FLOORS.excessive + 10}
          legend={[
            { name: "Most Mastercard chargebacks of one merchant", color: COLORS.mastercard },
            { name: `Floors: ${ECP_FLOORS.excessive} and ${ECP_FLOORS.highExcessive} a month (dashed)`, color: COLORS.alarm },
          ]}
        />
      }
      table={
        <NumbersTable
          caption={title}
          head={["Month", "Merchant with the most", "Its Mastercard chargebacks", `Merchants at ${ECP_FLOORS.excessive} or more`, `Merchants at ${ECP_FLOORS.highExcessive} or more`]}
          rows={rows.map((r) => [r.month, r.top?.merchant ?? "—", nf.format(r.top?.count ?? 0), nf.format(r.over100), nf.format(r.over300)])}
        />
      }
    />
  );
}
