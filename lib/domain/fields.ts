import type { RecordKind } from "./kinds";

/**
 * The record fields of both kinds (docs/api.md, "Response body"), declared once. Import validation, the database
 * columns, the JSON serializer, the CSV export and the detail drawer are all derived from these
 * lists, so a field's kind and order live in exactly one place.
 */

export type FieldKind =
  | "text" // free text
  | "integer" // JSON integer
  | "amount" // exact decimal, 2 places; stored as integer minor units
  | "date" // YYYY-MM-DD, a real calendar date
  | "trDate" // YYYY-MM-DD or the zero-filled 0000-00-00 the issuer may send
  | "datetime" // YYYY-MM-DD HH:MM:SS
  | "docIndicator" // 0, 1 or a space
  | "revIndicator" // R or a space
  | "currency" // ISO 4217 alpha code
  | "card" // masked card number 123456%1234
  | "cardType" // MC or VISA
  | "chbDecision" // documented chargeback decisions
  | "preArbDecision"; // accept or rebuttal

/**
 * What each kind of value is, so that code that treats all text alike (the CSV export's guard
 * against spreadsheet formulas) asks the kind instead of keeping a list of fields. A new kind
 * must be placed here: the Record type does not compile without it.
 */
const VALUE_OF_KIND: Record<FieldKind, "text" | "number" | "date"> = {
  text: "text",
  integer: "number",
  amount: "number",
  date: "date",
  trDate: "date",
  datetime: "date",
  docIndicator: "text",
  revIndicator: "text",
  currency: "text",
  card: "text",
  cardType: "text",
  chbDecision: "text",
  preArbDecision: "text",
};

/** True for kinds whose values are strings taken from the acquirer's file as they stand. */
export function isTextKind(kind: FieldKind): boolean {
  return VALUE_OF_KIND[kind] === "text";
}

export interface FieldDef {
  name: string;
  kind: FieldKind;
  /** true when the import refuses an empty cell (docs/api.md, "Import of acquirer files") */
  required: boolean;
  /** taken from the file name, not a CSV column */
  fromFileName?: boolean;
  maxLength?: number;
  label: string;
}

const f = (name: string, kind: FieldKind, label: string, opts: Partial<FieldDef> = {}): FieldDef => ({
  name,
  kind,
  label,
  required: false,
  ...opts,
});
const req = { required: true } as const;
const fromName = { required: true, fromFileName: true } as const;

/** Longest text cell the import accepts where the acquirer's file description gives no limit (docs/api.md, "Import of acquirer files"). */
export const DEFAULT_MAX_TEXT = 1000;

export const CHARGEBACK_FIELDS = [
  f("bank_id", "text", "Bank id", fromName),
  f("file_date", "date", "File date", fromName),
  f("card", "card", "Card", req),
  f("acq_ref_nr", "text", "Acquirer reference number", req),
  f("merchant_id", "text", "Merchant id", req),
  f("merchant_name", "text", "Merchant name"),
  f("reason_code", "integer", "Reason code", req),
  f("parent_mrch_id", "text", "Parent merchant id"),
  f("parent_mrch_name", "text", "Parent merchant name"),
  f("mcc_code", "text", "MCC"),
  f("eci_sli", "text", "ECI / SLI"),
  f("doc_indicator", "docIndicator", "Documents"),
  f("chb_proc_date", "date", "Processing date", req),
  f("comments", "text", "Issuer comments", { maxLength: 4000 }),
  f("function_code", "integer", "Function code", req),
  f("function_code_name", "text", "Function"),
  f("rev_indicator", "revIndicator", "Reversal indicator"),
  f("acq_bin", "text", "Acquirer BIN / ICA"),
  f("chb_refer_num", "text", "Chargeback reference number"),
  f("card_type", "cardType", "Scheme", req),
  f("chb_tr_date", "trDate", "Transaction date (chargeback data)"),
  f("chb_amount", "amount", "Chargeback amount", req),
  f("chb_ccy", "currency", "Chargeback currency", req),
  f("chb_settl_amount", "amount", "Settlement amount"),
  f("chb_settl_ccy", "currency", "Settlement currency"),
  f("chb_amount_transaction_ccy", "amount", "Amount in transaction currency"),
  f("tr_amount", "amount", "Transaction amount"),
  f("tr_ccy", "currency", "Transaction currency"),
  f("tr_date_time", "datetime", "Transaction date and time"),
  f("rev_amount", "amount", "Reversal amount"),
  f("rev_ccy", "currency", "Reversal currency"),
  f("rev_date_time", "datetime", "Reversal date and time"),
  f("payment_id", "text", "Payment id", req),
  f("xid", "text", "XID"),
  f("merchant_decision", "chbDecision", "Merchant decision"),
  f("merchant_resp_date", "date", "Merchant response date"),
  f("merchant_comments", "text", "Merchant comments", { maxLength: 4000 }),
  f("merchant_iban_code", "text", "Merchant IBAN"),
  f("transaction_id", "text", "Transaction id"),
  f("card_acceptor_id", "text", "Card acceptor id"),
  f("payment_order_nr", "text", "Order number", { maxLength: 30 }),
] as const satisfies readonly FieldDef[];

export const PRE_ARBITRATION_FIELDS = [
  f("bank_id", "text", "Bank id", fromName),
  f("file_date", "date", "File date", fromName),
  f("card", "card", "Card", req),
  f("acq_ref_nr", "text", "Acquirer reference number", req),
  f("merchant_id", "text", "Merchant id", req),
  f("merchant_name", "text", "Merchant name"),
  f("tr_date_time", "datetime", "Transaction date and time"),
  f("amount", "amount", "Amount", req),
  f("ccy", "currency", "Currency", req),
  f("xid", "text", "XID"),
  f("transaction_id", "text", "Transaction id"),
  f("card_acceptor_id", "text", "Card acceptor id"),
  f("case_date", "date", "Case date", req),
  f("case_stage", "text", "Case stage", req),
  f("fdl_comments", "text", "Comments", { maxLength: 4000 }),
  f("merchant_decision", "preArbDecision", "Merchant decision"),
  f("payment_id", "text", "Payment id", req),
  f("payment_order_nr", "text", "Order number", { maxLength: 30 }),
] as const satisfies readonly FieldDef[];

export type ChargebackFieldName = (typeof CHARGEBACK_FIELDS)[number]["name"];
export type PreArbitrationFieldName = (typeof PRE_ARBITRATION_FIELDS)[number]["name"];

export const CARD_TYPES = ["MC", "VISA"] as const;
export type CardType = (typeof CARD_TYPES)[number];

export const CHARGEBACK_DECISIONS = ["Accept CB", "Represent doc provided", "Represent CR processed"] as const;
export const PRE_ARBITRATION_DECISIONS = ["accept", "rebuttal"] as const;

export const CHARGEBACK_BANK_ID = "29";

// The kinds are declared with their names in ./kinds; they are read from here too, beside their fields.
export { RECORD_KINDS, type RecordKind } from "./kinds";

export const FIELDS_BY_KIND: Record<RecordKind, readonly FieldDef[]> = {
  chargeback: CHARGEBACK_FIELDS,
  pre_arbitration: PRE_ARBITRATION_FIELDS,
};

/**
 * A field's label, for code that names one field by hand (a grid column, a sort key). An unknown
 * name throws, so a misspelt field fails where its module loads instead of showing no label.
 */
export function fieldLabel(kind: RecordKind, name: string): string {
  const def = FIELDS_BY_KIND[kind].find((d) => d.name === name);
  if (!def) throw new Error(`No ${kind} field ${name}`);
  return def.label;
}

/** The CSV columns of an import file: every field except those taken from the name, plus shop_code. */
export function importColumns(kind: RecordKind): string[] {
  return ["shop_code", ...FIELDS_BY_KIND[kind].filter((d) => !("fromFileName" in d && d.fromFileName)).map((d) => d.name)];
}
