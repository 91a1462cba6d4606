import { rateLimitPerMinute } from "@/lib/config";

/**
 * Token bucket per credential: bursts up to the per-minute limit, refilled evenly. Kept in this
 * process's memory, so with several instances each enforces the limit on its own share.
 */
interface Bucket {
  tokens: number;
  updated: number;
}

const buckets = new Map<string, Bucket>();
const MAX_BUCKETS = 100_000;

/** Seconds to wait before retrying, or 0 when the request may go ahead. */
export function takeToken(credential: string, now = Date.now()): number {
  const limit = rateLimitPerMinute();
  if (limit === 0) return 0;
  const perMs = limit / 60_000;
  let bucket = buckets.get(credential);
  if (!bucket) {
    if (buckets.size >= MAX_BUCKETS) buckets.clear();
    bucket = { tokens: limit, updated: now };
    buckets.set(credential, bucket);
  }
  bucket.tokens = Math.min(limit, bucket.tokens + (now - bucket.updated) * perMs);
  bucket.updated = now;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return 0;
  }
  return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
}
