import { stringify } from "csv-stringify/sync";

/**
 * The CSV files the product writes (docs/api.md, "CSV export"): the server's record and worklist
 * exports and the report page's table, all through these two functions, so that a file written in
 * the browser follows the same rules as one streamed by the server.
 *
 * Fields are separated by commas and records end in CRLF. A field is quoted when it holds a comma,
 * a quote or any line break (`\n`, `\r` or `\r\n`), quotes inside doubled. csv-stringify quotes
 * only the record delimiter itself once one is given, so a lone `\n` in a comment would split its
 * row in two; `quote_record_delimiter` makes it quote every `\n` and `\r` as well.
 */
const CSV_OPTIONS = { delimiter: ",", record_delimiter: "\r\n", quote_record_delimiter: true } as const;

/** The lines of `rows`, each ended by CRLF. */
export const csvLines = (rows: readonly (readonly string[])[]): string => stringify(rows as string[][], CSV_OPTIONS);

/**
 * A text cell that a spreadsheet could run as a formula (a leading =, +, -, @, tab or CR) gets a
 * leading quote. Every text value comes from an acquirer's file, so every text field is guarded;
 * numbers and dates never are, so a negative amount stays a number.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function guardedText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
