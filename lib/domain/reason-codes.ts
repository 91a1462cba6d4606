/**
 * Chargeback reason codes as they appear in acquirer reports: 4 digits for card_type MC, 2 digits
 * (legacy) for VISA. Copied from the shared domain notes so the product never reads outside its
 * own tree; sources at the end. A code not listed still displays, as "<code> — unknown code".
 */
import type { CardType } from "./fields";

export const REASON_CATEGORIES = ["fraud", "authorization", "processing error", "consumer dispute"] as const;
export type ReasonCategory = (typeof REASON_CATEGORIES)[number];

export interface ReasonCode {
  cardType: CardType;
  code: number;
  title: string;
  category: ReasonCategory;
}

export const REASON_CODES: readonly ReasonCode[] = [
  { cardType: "MC", code: 4808, title: "Authorization-related chargeback", category: "authorization" },
  { cardType: "MC", code: 4812, title: "Account Number Not on File", category: "authorization" },
  { cardType: "MC", code: 4831, title: "Transaction Amount Differs", category: "processing error" },
  { cardType: "MC", code: 4834, title: "Point-of-Interaction Error", category: "processing error" },
  { cardType: "MC", code: 4837, title: "No Cardholder Authorization", category: "fraud" },
  { cardType: "MC", code: 4840, title: "Fraudulent Processing of Transactions", category: "fraud" },
  { cardType: "MC", code: 4841, title: "Canceled Recurring or Digital Goods Transactions", category: "consumer dispute" },
  { cardType: "MC", code: 4842, title: "Late Presentment", category: "processing error" },
  { cardType: "MC", code: 4846, title: "Correct Transaction Currency Code Not Provided", category: "processing error" },
  { cardType: "MC", code: 4849, title: "Questionable Merchant Activity", category: "fraud" },
  { cardType: "MC", code: 4850, title: "Installment Billing Dispute; historically 'Credit Posted as a Purchase'", category: "consumer dispute" },
  { cardType: "MC", code: 4853, title: "Cardholder Dispute", category: "consumer dispute" },
  { cardType: "MC", code: 4854, title: "Cardholder Dispute - Not Elsewhere Classified", category: "consumer dispute" },
  { cardType: "MC", code: 4855, title: "Goods or Services Not Provided", category: "consumer dispute" },
  { cardType: "MC", code: 4859, title: "Addendum, No-show, or ATM Dispute", category: "consumer dispute" },
  { cardType: "MC", code: 4860, title: "Credit Not Processed", category: "consumer dispute" },
  { cardType: "MC", code: 4862, title: "Counterfeit Transaction - Magnetic Stripe POI Fraud", category: "fraud" },
  { cardType: "MC", code: 4863, title: "Cardholder Does Not Recognize - Potential Fraud", category: "fraud" },
  { cardType: "MC", code: 4870, title: "Chip Liability Shift", category: "fraud" },
  { cardType: "MC", code: 4871, title: "Chip/PIN Liability Shift", category: "fraud" },
  { cardType: "MC", code: 4999, title: "Domestic Chargeback Dispute- domestic rules dispute not processable under another reason code", category: "consumer dispute" },
  { cardType: "VISA", code: 30, title: "Services Not Provided or Merchandise Not Received", category: "consumer dispute" },
  { cardType: "VISA", code: 41, title: "Cancelled Recurring Transaction", category: "consumer dispute" },
  { cardType: "VISA", code: 53, title: "Not as Described or Defective Merchandise", category: "consumer dispute" },
  { cardType: "VISA", code: 57, title: "Fraudulent Multiple Transactions", category: "fraud" },
  { cardType: "VISA", code: 60, title: "Illegible Fulfillment / Requested Copy Illegible or Invalid", category: "processing error" },
  { cardType: "VISA", code: 62, title: "Counterfeit Transaction", category: "fraud" },
  { cardType: "VISA", code: 70, title: "Card Recovery Bulletin or Exception File", category: "authorization" },
  { cardType: "VISA", code: 71, title: "Declined Authorization", category: "authorization" },
  { cardType: "VISA", code: 72, title: "No Authorization", category: "authorization" },
  { cardType: "VISA", code: 73, title: "Expired Card", category: "authorization" },
  { cardType: "VISA", code: 74, title: "Late Presentment", category: "processing error" },
  { cardType: "VISA", code: 75, title: "Transaction Not Recognized", category: "consumer dispute" },
  { cardType: "VISA", code: 76, title: "Incorrect Currency or Transaction Code, or Domestic Transaction Processing Violation", category: "processing error" },
  { cardType: "VISA", code: 77, title: "Non-Matching Account Number", category: "processing error" },
  { cardType: "VISA", code: 80, title: "Incorrect Transaction Amount or Account Number", category: "processing error" },
  { cardType: "VISA", code: 81, title: "Fraud - Card-Present Environment", category: "fraud" },
  { cardType: "VISA", code: 82, title: "Duplicate Processing", category: "processing error" },
  { cardType: "VISA", code: 83, title: "Fraud - Card-Absent Environment", category: "fraud" },
  { cardType: "VISA", code: 85, title: "Credit Not Processed", category: "consumer dispute" },
  { cardType: "VISA", code: 86, title: "Paid by Other Means", category: "processing error" },
  { cardType: "VISA", code: 90, title: "Non-Receipt of Cash or Load Transaction Value at ATM or Load Device", category: "consumer dispute" },
  { cardType: "VISA", code: 93, title: "Merchant Fraud Performance Program / Visa Fraud Monitoring Program", category: "fraud" },
];

const BY_KEY = new Map(REASON_CODES.map((r) => [`${r.cardType}:${r.code}`, r]));

/**
 * The reason code's entry. The scheme decides the meaning (MC 4837 and a Visa 37 are unrelated),
 * so the lookup is by card type first; a record without a known card type falls back to the
 * code alone, which is unambiguous because the schemes use different digit counts.
 */
export function findReasonCode(code: number | null | undefined, cardType?: string | null): ReasonCode | undefined {
  if (code === null || code === undefined) return undefined;
  if (cardType === "MC" || cardType === "VISA") return BY_KEY.get(`${cardType}:${code}`);
  return BY_KEY.get(`MC:${code}`) ?? BY_KEY.get(`VISA:${code}`);
}

/** "4837 — No Cardholder Authorization", or "4999 — unknown code". */
export function reasonCodeLabel(code: number, cardType?: string | null): string {
  const entry = findReasonCode(code, cardType);
  return `${code} — ${entry ? entry.title : "unknown code"}`;
}

/**
 * Where the titles and categories above can be checked: acquirers' and processors' published
 * reason-code guides (the schemes' own chargeback guides are available to their members only).
 */
export const REASON_CODE_SOURCES = [
  "https://docs.adyen.com/risk-management/chargeback-guidelines/mastercard-chargebacks",
  "https://docs.antom.com/ac/dispute/mastercard.md",
  "https://docs.stripe.com/disputes/categories",
  "https://developer.north.com/supplemental-resources/chargeback-reason-codes",
  "https://documentation.lemonway.com/v8.2/reference/chargeback-codes",
  "https://www.wellsfargo.com/biz/merchant/service/manage/chargeback/codes/visa74_mc42",
] as const;
