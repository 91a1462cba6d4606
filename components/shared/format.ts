/** Display formats: amounts per currency, dates as ISO YYYY-MM-DD (never 03/04/2026). */

const formatters = new Map<string, Intl.NumberFormat>();

function currencyFormatter(ccy: string): Intl.NumberFormat | undefined {
  if (!formatters.has(ccy)) {
    try {
      // The code before the number ("EUR 1,234.50") is unambiguous where symbols are not ($).
      formatters.set(ccy, new Intl.NumberFormat("en", { style: "currency", currency: ccy, currencyDisplay: "code", minimumFractionDigits: 2, maximumFractionDigits: 2 }));
    } catch {
      return undefined; // not an ISO 4217 code Intl knows
    }
  }
  return formatters.get(ccy);
}

const plain = new Intl.NumberFormat("en", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * The API writes amounts with exactly two decimals; a JS number holds any amount up to the
 * database limit exactly enough to print those two decimals back (exact values go to the CSV).
 */
export function formatAmount(amount: unknown, ccy: unknown): string {
  if (amount === null || amount === undefined || amount === "") return "—";
  const n = typeof amount === "number" ? amount : Number(amount);
  if (!Number.isFinite(n)) return String(amount);
  const code = typeof ccy === "string" && ccy.trim() ? ccy.trim().toUpperCase() : "";
  const f = code ? currencyFormatter(code) : undefined;
  if (f) return f.format(n).replace(/\u00a0/g, " ");
  return code ? `${code} ${plain.format(n)}` : plain.format(n);
}

export function formatText(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string" && value.trim() === "") return "—";
  return String(value);
}

/** The issuer may send a zero-filled date: shown as "not provided" rather than as a date. */
export function formatDate(value: unknown): string {
  if (value === null || value === undefined || value === "") return "—";
  if (value === "0000-00-00") return "not provided (0000-00-00)";
  return String(value);
}
