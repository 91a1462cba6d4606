/**
 * Time and peak memory of a piece of the benchmark, in a module of its own: data.ts measures the
 * generation and import.ts the import, and import.ts's command loads data.ts (no import circle).
 */

/** Samples the RSS of this process while `work` runs; the import streams, so this should stay flat. */
export async function measured<T>(work: () => Promise<T>): Promise<{ result: T; seconds: number; peakRss: number }> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
  const started = performance.now();
  try {
    const result = await work();
    return { result, seconds: (performance.now() - started) / 1000, peakRss: Math.max(peakRss, process.memoryUsage().rss) };
  } finally {
    clearInterval(sampler);
  }
}
