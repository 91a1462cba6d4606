declare module "parse-prometheus-text-format" {
  /** Parses the Prometheus text format into prom2json's objects (tests/helpers/prometheus.ts types them). */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
