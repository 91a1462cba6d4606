/**
 * The benchmark's HTTP side: signed requests (docs/api.md, "Authentication"), closed-loop load at a fixed
 * concurrency with an unmeasured warm-up, and latency statistics. Keep-alive connections from
 * node:http, a fresh agent per run so that no idle socket the server has closed is reused.
 */
import crypto from "node:crypto";
import http from "node:http";

export interface Credential {
  shopCode: string;
  password: string;
  access: string[];
}

export interface Call {
  path: string;
  body: string;
  /** undefined: no authentication headers at all */
  credential?: Credential;
}

export interface Answer {
  status: number;
  ms: number;
  /** totalElements of a 200 answer */
  total?: number;
  error?: string;
  snippet?: string;
}

export function signedHeaders(credential: Credential): Record<string, string> {
  const nonce = crypto.randomBytes(16).toString("hex");
  const signature = crypto.createHash("sha256").update(nonce + credential.password, "utf8").digest("hex");
  return { "X-Shop-Code": credential.shopCode, "X-Nonce": nonce, "X-Signature": signature };
}

const TOTAL = '"totalElements":';
const REQUEST_TIMEOUT_MS = 60_000;

export function send(base: URL, call: Call, agent: http.Agent): Promise<Answer> {
  const body = Buffer.from(call.body, "utf8");
  const headers: Record<string, string | number> = { "Content-Type": "application/json", "Content-Length": body.length };
  if (call.credential) Object.assign(headers, signedHeaders(call.credential));
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.request({ host: base.hostname, port: base.port, path: call.path, method: "POST", headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", (err) => resolve({ status: 0, ms: performance.now() - started, error: err.message }));
      res.on("end", () => {
        const ms = performance.now() - started;
        const text = Buffer.concat(chunks).toString("utf8");
        const status = res.statusCode ?? 0;
        if (status !== 200) return resolve({ status, ms, snippet: text.slice(0, 200) });
        // The envelope's totals follow the content; no record field is called totalElements.
        const at = text.lastIndexOf(TOTAL);
        const total = at < 0 ? undefined : Number.parseInt(text.slice(at + TOTAL.length, at + TOTAL.length + 20), 10);
        resolve({ status, ms, total, snippet: total === undefined ? text.slice(0, 200) : undefined });
      });
    });
    req.on("error", (err) => resolve({ status: 0, ms: performance.now() - started, error: `${(err as NodeJS.ErrnoException).code ?? ""} ${err.message}`.trim() }));
    // A server that stops answering fails the request instead of hanging the benchmark.
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.end(body);
  });
}

/** One request on a connection of its own. */
export async function sendOnce(base: URL, call: Call): Promise<Answer> {
  const agent = new http.Agent({ keepAlive: false });
  try {
    return await send(base, call, agent);
  } finally {
    agent.destroy();
  }
}

export interface Stats {
  requests: number;
  seconds: number;
  reqPerSec: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  failures: number;
  /** a few of the failures, for the reader */
  failureSamples: string[];
  /** distinct totalElements seen, ascending */
  totals: number[];
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const ms1 = (n: number) => Math.round(n * 10) / 10;

/** Collects answers; latencies in a growing Float64Array, so memory stays small. */
export class Recorder {
  private latencies = new Float64Array(4096);
  private n = 0;
  failures = 0;
  failureSamples: string[] = [];
  totals = new Set<number>();
  lastAt = 0;

  constructor(private readonly expected: number) {}

  add(answer: Answer, at: number) {
    if (this.n === this.latencies.length) {
      const bigger = new Float64Array(this.n * 2);
      bigger.set(this.latencies);
      this.latencies = bigger;
    }
    this.latencies[this.n++] = answer.ms;
    this.lastAt = Math.max(this.lastAt, at);
    if (answer.status !== this.expected || answer.error) {
      this.failures++;
      if (this.failureSamples.length < 5) this.failureSamples.push(answer.error ?? `HTTP ${answer.status} ${answer.snippet ?? ""}`.trim());
    } else if (answer.total !== undefined) this.totals.add(answer.total);
  }

  stats(seconds: number): Stats {
    const sorted = this.latencies.slice(0, this.n).sort();
    return {
      requests: this.n,
      seconds: Math.round(seconds * 100) / 100,
      reqPerSec: seconds > 0 ? Math.round((this.n / seconds) * 10) / 10 : 0,
      p50: ms1(percentile(sorted, 50)),
      p95: ms1(percentile(sorted, 95)),
      p99: ms1(percentile(sorted, 99)),
      max: ms1(sorted.length ? sorted[sorted.length - 1] : 0),
      failures: this.failures,
      failureSamples: this.failureSamples,
      totals: [...this.totals].sort((a, b) => a - b),
    };
  }
}

export interface Group {
  name: string;
  connections: number;
  call: () => Call;
  expected: number;
}

/**
 * Closed-loop load: each connection sends its next request when the previous answer is in.
 * Answers that arrive during the warm-up are not counted; the measured phase lasts `seconds`
 * (or until `until` settles, when given), and its throughput is the answers that arrived after
 * the warm-up divided by the time from the warm-up's end to the last answer.
 */
export async function load(base: URL, groups: Group[], opts: { warmup: number; seconds?: number; until?: Promise<unknown> }): Promise<Record<string, Stats>> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: groups.reduce((n, g) => n + g.connections, 0) + 4 });
  const recorders = new Map(groups.map((g) => [g.name, new Recorder(g.expected)]));
  let stop = false;
  let measureFrom = Infinity;
  try {
    const warm = performance.now();
    measureFrom = warm + opts.warmup * 1000;
    if (opts.seconds !== undefined) {
      const end = measureFrom + opts.seconds * 1000;
      setTimeout(() => (stop = true), end - warm).unref();
    }
    opts.until?.then(
      () => (stop = true),
      () => (stop = true),
    );
    const connection = async (group: Group) => {
      const recorder = recorders.get(group.name)!;
      while (!stop) {
        const answer = await send(base, group.call(), agent);
        const at = performance.now();
        if (at >= measureFrom) recorder.add(answer, at);
      }
    };
    await Promise.all(groups.flatMap((g) => Array.from({ length: g.connections }, () => connection(g))));
  } finally {
    agent.destroy();
  }
  const out: Record<string, Stats> = {};
  for (const [name, recorder] of recorders) {
    out[name] = recorder.stats(recorder.lastAt > measureFrom ? (recorder.lastAt - measureFrom) / 1000 : 0);
  }
  return out;
}

/** `count` requests one after another; their median latency. */
export async function alone(base: URL, call: () => Call, count: number, expected = 200): Promise<{ medianMs: number; failures: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let failures = 0;
  try {
    for (let i = 0; i < count; i++) {
      const answer = await send(base, call(), agent);
      if (answer.status !== expected || answer.error) failures++;
      times.push(answer.ms);
    }
  } finally {
    agent.destroy();
  }
  times.sort((a, b) => a - b);
  return { medianMs: ms1(median(times)), failures };
}

export function median(sorted: number[]): number {
  if (sorted.length === 0) return 0;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
