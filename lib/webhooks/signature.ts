import crypto from "node:crypto";

/**
 * docs/api.md, "Webhooks": `Dispute-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">`
 * keyed with the endpoint's secret.
 */
export const SIGNATURE_HEADER = "Dispute-Signature";

export function webhookSignature(secret: string, body: string, unixSeconds: number): string {
  const v1 = crypto.createHmac("sha256", secret).update(`${unixSeconds}.${body}`, "utf8").digest("hex");
  return `t=${unixSeconds},v1=${v1}`;
}
