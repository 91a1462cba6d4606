import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { csvLines, guardedText } from "@/lib/domain/csv";

/**
 * The one CSV writer of the exports (lib/domain/csv.ts; docs/api.md, "CSV export"): whatever a
 * text field holds, a CSV parser gives back the same rows and fields.
 */

/** A reader that ends a record at any line break outside quotes, as spreadsheet programs do. */
const ANY_LINE_BREAK = ["\r\n", "\n", "\r"];

describe("CSV writer", () => {
  it("quotes a field with a lone line feed, a lone carriage return, CRLF, a quote or a comma", () => {
    expect(csvLines([["a\nb", "c"]])).toBe('"a\nb",c\r\n');
    expect(csvLines([["a\rb", "a\r\nb", 'say "x"', "x,y", "plain", ""]])).toBe('"a\rb","a\r\nb","say ""x""","x,y",plain,\r\n');
  });

  it("round-trips any rows through a CSV parser", () => {
    const field = fc.string({ unit: fc.constantFrom("a", "Z", " ", "\n", "\r", '"', ",", "'", "=", "ä", "€") });
    const rows = fc.integer({ min: 1, max: 6 }).chain((width) => fc.array(fc.array(field, { minLength: width, maxLength: width }), { minLength: 1, maxLength: 20 }));
    fc.assert(
      fc.property(rows, (given) => {
        const back = parse(csvLines(given), { record_delimiter: ANY_LINE_BREAK }) as string[][];
        expect(back).toEqual(given);
      }),
      { numRuns: 500 },
    );
  });

  it("guards a text that a spreadsheet would run as a formula, and only such text", () => {
    for (const risky of ["=1+2", "+1", "-1", "@SUM(A1)", "\tx", "\rx"]) expect(guardedText(risky)).toBe(`'${risky}`);
    for (const safe of ["a=b", "1-2", "", "'=x"]) expect(guardedText(safe)).toBe(safe);
  });
});
