import { describe, expect, it } from "vitest";
import { formatMinor, MAX_MINOR_UNITS, parseAmount } from "@/lib/domain/money";

describe("exact money", () => {
  it("parses padded amounts with up to two decimals into minor units", () => {
    expect(parseAmount("  12.5")).toBe(1250n);
    expect(parseAmount("120.50")).toBe(12050n);
    expect(parseAmount("0")).toBe(0n);
    expect(parseAmount("-3.07")).toBe(-307n);
    expect(parseAmount("1000000.00")).toBe(100000000n);
    // 0.1 + 0.2 style drift cannot happen: digits are taken as digits.
    expect(parseAmount("9007199254740.99")).toBe(900719925474099n);
  });

  it("refuses anything that is not an amount with at most two decimals", () => {
    for (const bad of ["", " ", "12.345", "1,50", "1e3", "12.", ".5", "abc", "+1", "1 000"]) expect(parseAmount(bad)).toBeNull();
    expect(parseAmount((MAX_MINOR_UNITS + 1n).toString())).toBeNull();
  });

  it("formats minor units with exactly two decimals from any driver's representation", () => {
    expect(formatMinor(12050)).toBe("120.50");
    expect(formatMinor("5")).toBe("0.05");
    expect(formatMinor(0n)).toBe("0.00");
    expect(formatMinor(-307)).toBe("-3.07");
    expect(formatMinor(100000000)).toBe("1000000.00");
    expect(formatMinor(900719925474099n)).toBe("9007199254740.99");
  });
});
