/**
 * Exact money. Amounts travel as text in the file and in the JSON and as integer minor units
 * (cents) in the database; they never pass through a binary floating-point number.
 */

/** Largest absolute amount in minor units: keeps every value exact as a JS number and as BIGINT. */
export const MAX_MINOR_UNITS = 10n ** 15n - 1n;

const AMOUNT_TEXT = /^(-)?(\d+)(?:\.(\d{1,2}))?$/;

/** "  12.5" -> 1250n; null when the text is not an amount with at most two decimals. */
export function parseAmount(text: string): bigint | null {
  const m = AMOUNT_TEXT.exec(text.trim());
  if (!m) return null;
  const [, minus, whole, frac = ""] = m;
  const minor = BigInt(whole) * 100n + BigInt(frac.padEnd(2, "0"));
  if (minor > MAX_MINOR_UNITS) return null;
  return minus ? -minor : minor;
}

/** 1250 -> "12.50", -5 -> "-0.05". Accepts what either database driver returns for a BIGINT. */
export function formatMinor(value: bigint | number | string): string {
  if (typeof value === "number" && Number.isSafeInteger(value)) {
    // Integer arithmetic on a safe integer is exact: the remainder first, then an exact division.
    const abs = Math.abs(value);
    const cents = abs % 100;
    return `${value < 0 ? "-" : ""}${(abs - cents) / 100}.${cents < 10 ? "0" : ""}${cents}`;
  }
  const minor = BigInt(value);
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const whole = abs / 100n;
  const cents = (abs % 100n).toString().padStart(2, "0");
  return `${negative ? "-" : ""}${whole}.${cents}`;
}
