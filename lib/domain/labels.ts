/**
 * Plain meanings of the coded fields (function code, documents and reversal indicators; docs/api.md,
 * "Response body"), declared once for the grid, the
 * drawer and the export's readers.
 */

export const FUNCTION_CODES = {
  450: { title: "First Chargeback (Full)", stage: "first_chargeback", partial: false },
  451: { title: "Arbitration Chargeback (Full)", stage: "arbitration_chargeback", partial: false },
  453: { title: "First Chargeback (Partial)", stage: "first_chargeback", partial: true },
  454: { title: "Arbitration Chargeback (Partial)", stage: "arbitration_chargeback", partial: true },
} as const;

export type FunctionCode = keyof typeof FUNCTION_CODES;

export function functionCodeInfo(code: number | null | undefined) {
  return code !== null && code !== undefined && code in FUNCTION_CODES ? FUNCTION_CODES[code as FunctionCode] : undefined;
}

/** "450 First Chargeback (Full)"; an unknown code still shows as "<code> — unknown code". */
export function functionCodeLabel(code: number | null | undefined): string {
  if (code === null || code === undefined) return "—";
  const info = functionCodeInfo(code);
  return info ? `${code} ${info.title}` : `${code} — unknown code`;
}

/** Short label for a grid cell: "First (Full)", "Arbitration (Partial)". */
export function functionCodeShort(code: number | null | undefined): string {
  const info = functionCodeInfo(code);
  if (!info) return code === null || code === undefined ? "—" : `${code}`;
  return `${info.stage === "first_chargeback" ? "First" : "Arbitration"} (${info.partial ? "Partial" : "Full"})`;
}

/** doc_indicator arrives as 0, 1 or a space (docs/api.md, "Response body"). */
export function hasDocuments(value: unknown): boolean {
  return value === 1 || value === "1";
}

export function docIndicatorLabel(value: unknown): string {
  if (hasDocuments(value)) return "1 — supporting documents provided by the issuer";
  if (value === null || value === undefined) return "not delivered";
  return `${value === " " ? "space" : String(value)} — no documents provided`;
}

/** rev_indicator: "R" marks a chargeback reversal; null or a space a normal chargeback. */
export function isReversal(value: unknown): boolean {
  return value === "R";
}

export function revIndicatorLabel(value: unknown): string {
  if (isReversal(value)) return "R — chargeback reversal: a credit back to the acquirer; the chargeback fields hold the reversal's data";
  if (value === null || value === undefined) return "empty — normal chargeback";
  if (value === " ") return "space — normal chargeback";
  return `${String(value)} — unknown indicator`;
}

export const CARD_TYPE_NAMES: Record<string, string> = { MC: "Mastercard", VISA: "Visa" };

export function cardTypeName(cardType: string | null | undefined): string {
  if (!cardType) return "—";
  return CARD_TYPE_NAMES[cardType] ?? cardType;
}

/**
 * The scheme of a masked card number (123456%1234) from its BIN, for pre-arbitration records,
 * which carry no card_type: 4 is Visa, 51-55 and 2221-2720 are Mastercard.
 */
export function schemeFromCard(card: string | null | undefined): "MC" | "VISA" | undefined {
  if (!card || !/^\d{6}/.test(card)) return undefined;
  if (card[0] === "4") return "VISA";
  const two = Number(card.slice(0, 2));
  const four = Number(card.slice(0, 4));
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return "MC";
  return undefined;
}
