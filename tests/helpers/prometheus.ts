import parsePrometheusTextFormat from "parse-prometheus-text-format";

/**
 * The Prometheus text exposition read by a real parser (parse-prometheus-text-format, the output
 * of prom2json), never by our own regular expressions.
 */

export interface Sample {
  labels?: Record<string, string>;
  value?: string;
  /** histograms: upper bound -> cumulative count */
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}

export interface Family {
  name: string;
  help: string;
  type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  metrics: Sample[];
}

/**
 * Every family by name. The parser keeps only one series of a histogram (it merges the buckets of
 * all label sets into one, and drops their labels), so histograms are read twice: their names,
 * types and help as the parser reads them, their series from a second parse of the same text
 * without the histograms' TYPE lines, where each _bucket, _sum and _count sample keeps its labels;
 * the series are then put together by their labels (le aside).
 */
export function parseExposition(text: string): Map<string, Family> {
  const families = new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]));
  const histograms = [...families.values()].filter((f) => f.type === "HISTOGRAM");
  if (histograms.length === 0) return families;
  // Untyped, the samples of one name come as many runs (bucket, sum, count, then the next series' bucket...): joined here.
  const untyped = new Map<string, Family>();
  for (const f of parsePrometheusTextFormat(text.split("\n").filter((line) => !/^# TYPE \S+ histogram$/.test(line)).join("\n")) as Family[]) {
    const known = untyped.get(f.name);
    if (known) known.metrics.push(...f.metrics);
    else untyped.set(f.name, { ...f, metrics: [...f.metrics] });
  }
  for (const family of histograms) {
    const series = new Map<string, Sample>();
    const of = (labels: Record<string, string> = {}) => {
      const rest = Object.fromEntries(Object.entries(labels).filter(([k]) => k !== "le"));
      const key = JSON.stringify(Object.entries(rest).sort());
      let sample = series.get(key);
      if (!sample) series.set(key, (sample = { labels: rest, buckets: {} }));
      return sample;
    };
    for (const m of untyped.get(`${family.name}_bucket`)?.metrics ?? []) of(m.labels).buckets![m.labels!.le] = m.value!;
    for (const m of untyped.get(`${family.name}_sum`)?.metrics ?? []) of(m.labels).sum = m.value;
    for (const m of untyped.get(`${family.name}_count`)?.metrics ?? []) of(m.labels).count = m.value;
    families.set(family.name, { ...family, metrics: [...series.values()] });
  }
  return families;
}

/** The value of the sample with exactly these labels; undefined when there is none. */
export function sampleValue(family: Family | undefined, labels: Record<string, string>): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const found = family?.metrics.find((m) => JSON.stringify(Object.entries(m.labels ?? {}).sort()) === wanted);
  return found?.value === undefined ? undefined : Number(found.value);
}
