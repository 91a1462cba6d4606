"use client";

import { AxisBottom, AxisLeft } from "@visx/axis";
import { GridColumns, GridRows } from "@visx/grid";
import { Group } from "@visx/group";
import { scaleBand, scaleLinear } from "@visx/scale";
import { Bar, Line, Pie } from "@visx/shape";
import { type ReactNode, useLayoutEffect, useRef, useState } from "react";

/**
 * The overview's charts, drawn with visx (scales, shapes and axes as plain SVG in React). They are
 * pictures for sighted users: each ChartFigure holds a caption and a table with every number drawn.
 * Plain SVG renders with the page on the server, so a chart is on screen before the page's code
 * has run; in the browser it is drawn again at the width its box measures.
 */

/** The chart box's height on screen (ChartFigure's h-64) and the width the server draws at. */
const HEIGHT = 256;
const FIRST_WIDTH = 600;
const MAX_BAR = 72;
const TICK = { fontSize: 12, fill: "#334155", fontFamily: "inherit" } as const;
const nf = new Intl.NumberFormat("en");

/** The width of the element the ref is on, FIRST_WIDTH until measured. */
function useWidth<E extends HTMLElement>() {
  const ref = useRef<E>(null);
  const [width, setWidth] = useState(FIRST_WIDTH);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth || FIRST_WIDTH);
    const observer = new ResizeObserver(([entry]) => setWidth(Math.max(1, Math.round(entry.contentRect.width))));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

export interface Series {
  key: string;
  name: string;
  color: string;
}

export interface BarDatum {
  label: string;
  values: Record<string, number>;
}

/** Colour swatches and names, as HTML under the chart. */
export function Legend({ items }: { items: { name: string; color: string }[] }) {
  return (
    <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700">
      {items.map((item) => (
        <li key={item.name} className="flex items-center gap-1.5">
          <span className="inline-block h-2.5 w-2.5 rounded-sm" style={{ background: item.color }} />
          {item.name}
        </li>
      ))}
    </ul>
  );
}

/** Every n-th label, so that labels of about `labelPx` never overlap in `span` pixels. */
function thinned(labels: string[], span: number, labelPx: number): string[] {
  const every = Math.max(1, Math.ceil((labels.length * labelPx) / Math.max(span, 1)));
  return labels.filter((_, i) => i % every === 0);
}

/**
 * Bars, stacked when there are several series: columns over `labels` (vertical), or rows (horizontal,
 * labels on the left). `lines`: dashed reference lines at values, labelled.
 */
export function BarChart({
  data,
  series,
  horizontal = false,
  labelWidth = 120,
  lines = [],
  minMax = 0,
  legend,
}: {
  data: BarDatum[];
  series: Series[];
  horizontal?: boolean;
  labelWidth?: number;
  lines?: { value: number; color: string }[];
  /** the value axis reaches at least this far */
  minMax?: number;
  /** a legend under the chart */
  legend?: { name: string; color: string }[];
}) {
  const { ref, width } = useWidth<HTMLDivElement>();
  const total = (d: BarDatum) => series.reduce((n, s) => n + (d.values[s.key] ?? 0), 0);
  const max = Math.max(minMax, ...data.map(total), ...lines.map((l) => l.value), 1);
  const margin = horizontal ? { top: 4, right: 28, bottom: 24, left: labelWidth } : { top: 8, right: 8, bottom: 24, left: 48 };
  const innerW = Math.max(1, width - margin.left - margin.right);
  const height = legend ? HEIGHT - 28 : HEIGHT;
  const innerH = height - margin.top - margin.bottom;
  const labels = data.map((d) => d.label);
  const band = scaleBand<string>({ domain: labels, range: horizontal ? [0, innerH] : [0, innerW], padding: 0.2 });
  const value = scaleLinear<number>({ domain: [0, max], range: horizontal ? [0, innerW] : [innerH, 0], nice: true });
  const integerTicks = (v: unknown) => (Number.isInteger(Number(v)) ? nf.format(Number(v)) : "");

  // Bars no thicker than MAX_BAR, centred in their band (one month alone is not a wall).
  const thickness = Math.min(band.bandwidth(), MAX_BAR);
  const offset = (band.bandwidth() - thickness) / 2;
  const bars: ReactNode[] = [];
  for (const d of data) {
    let base = 0;
    for (const s of series) {
      const v = d.values[s.key] ?? 0;
      if (v > 0) {
        const from = value(base);
        const to = value(base + v);
        bars.push(
          horizontal ? (
            <Bar key={`${d.label}-${s.key}`} x={from} y={(band(d.label) ?? 0) + offset} width={Math.max(0, to - from)} height={thickness} fill={s.color} />
          ) : (
            <Bar key={`${d.label}-${s.key}`} x={(band(d.label) ?? 0) + offset} y={to} width={thickness} height={Math.max(0, from - to)} fill={s.color} />
          ),
        );
      }
      base += v;
    }
  }

  return (
    <div ref={ref} className="h-full w-full overflow-hidden">
      <svg width={width} height={height} role="presentation">
        <Group left={margin.left} top={margin.top}>
          {horizontal ? (
            <GridColumns scale={value} height={innerH} numTicks={5} stroke="#e2e8f0" strokeDasharray="3 3" />
          ) : (
            <GridRows scale={value} width={innerW} numTicks={5} stroke="#e2e8f0" strokeDasharray="3 3" />
          )}
          {bars}
          {lines.map((l) => {
            const at = value(l.value);
            return horizontal ? (
              <Line key={l.value} from={{ x: at, y: 0 }} to={{ x: at, y: innerH }} stroke={l.color} strokeDasharray="4 4" />
            ) : (
              <g key={l.value}>
                <Line from={{ x: 0, y: at }} to={{ x: innerW, y: at }} stroke={l.color} strokeDasharray="4 4" />
                <text x={innerW - 2} y={at < 14 ? at + 12 : at - 4} textAnchor="end" fontSize={11} fill={l.color}>
                  {nf.format(l.value)}
                </text>
              </g>
            );
          })}
          {horizontal ? (
            <>
              <AxisLeft scale={band} hideTicks tickLabelProps={() => ({ ...TICK, fontSize: 11, textAnchor: "end", dx: -4, dy: "0.33em" })} />
              <AxisBottom top={innerH} scale={value} numTicks={5} tickFormat={integerTicks} tickLabelProps={() => ({ ...TICK, textAnchor: "middle" })} />
            </>
          ) : (
            <>
              <AxisLeft scale={value} numTicks={5} tickFormat={integerTicks} tickLabelProps={() => ({ ...TICK, textAnchor: "end", dx: -4, dy: "0.33em" })} />
              <AxisBottom top={innerH} scale={band} tickValues={thinned(labels, innerW, 64)} tickLabelProps={() => ({ ...TICK, textAnchor: "middle" })} />
            </>
          )}
        </Group>
      </svg>
      {legend ? <Legend items={legend} /> : null}
    </div>
  );
}

/** A ring of shares; the legend is HTML beside it and the numbers are in the figure's table. */
export function Donut({ data, colors }: { data: { name: string; count: number }[]; colors: readonly string[] }) {
  const { ref, width } = useWidth<HTMLDivElement>();
  const height = HEIGHT - 28;
  const radius = Math.max(10, Math.min(width, height) / 2 - 4);
  return (
    <div ref={ref} className="h-full w-full overflow-hidden">
      <svg width={width} height={height} role="presentation">
        <Group left={width / 2} top={height / 2}>
          <Pie data={data.filter((d) => d.count > 0)} pieValue={(d) => d.count} pieSort={null} outerRadius={radius} innerRadius={radius * 0.56}>
            {(pie) =>
              pie.arcs.map((arc) => (
                <path key={arc.data.name} d={pie.path(arc) ?? ""} fill={colors[data.findIndex((d) => d.name === arc.data.name) % colors.length]} stroke="#fff" />
              ))
            }
          </Pie>
        </Group>
      </svg>
      <Legend items={data.map((d, i) => ({ name: d.name, color: colors[i % colors.length] }))} />
    </div>
  );
}
