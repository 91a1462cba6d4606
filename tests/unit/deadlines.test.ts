import { describe, expect, it } from "vitest";
import { addDays, dateOfDay, dayNumber } from "@/lib/domain/calendar";
import { chargebackDeadline, DEFAULT_DEADLINE_CONFIG, deadlineConfigFromEnv, DeadlineConfigError, disputeState, expiryDays, preArbitrationDeadline, statusOn, windowDays } from "@/lib/domain/deadlines";
import { functionCodeLabel, schemeFromCard } from "@/lib/domain/labels";
import { findReasonCode, reasonCodeLabel } from "@/lib/domain/reason-codes";

describe("answer-by dates", () => {
  const config = DEFAULT_DEADLINE_CONFIG;

  it("adds the acquirer window to the processing date, across month ends", () => {
    const d = chargebackDeadline({ card_type: "MC", function_code: 450, chb_proc_date: "2026-01-25", rev_indicator: null, merchant_decision: null }, config, "2026-02-01");
    expect(d).toMatchObject({ status: "open", stage: "first_chargeback", scheme: "MC", answerBy: "2026-02-08", daysLeft: 7, windowDays: 14 });
  });

  it("never goes past the scheme limit", () => {
    const wide = deadlineConfigFromEnv({ DEADLINE_DAYS_VISA_FIRST_CHARGEBACK: "60" });
    const d = chargebackDeadline({ card_type: "VISA", function_code: 453, chb_proc_date: "2026-03-01" }, wide, "2026-03-01");
    expect(d.windowDays).toBe(30);
    expect(d.answerBy).toBe("2026-03-31");
  });

  it("flags due soon, overdue and answered; reversals have nothing to answer", () => {
    const base = { card_type: "MC", function_code: 450, chb_proc_date: "2026-01-01" };
    expect(chargebackDeadline(base, config, "2026-01-13").status).toBe("due_soon");
    expect(chargebackDeadline(base, config, "2026-01-16")).toMatchObject({ status: "overdue", daysLeft: -1 });
    expect(chargebackDeadline({ ...base, merchant_decision: "Accept CB" }, config, "2026-01-16").status).toBe("answered");
    expect(chargebackDeadline({ ...base, rev_indicator: "R" }, config, "2026-01-02").status).toBe("not_applicable");
    expect(chargebackDeadline({ ...base, function_code: 999 }, config, "2026-01-02").status).toBe("not_applicable");
  });

  it("expires once the scheme limit has passed: never days overdue after that", () => {
    const base = { card_type: "MC", function_code: 450, chb_proc_date: "2026-01-01" };
    // Mastercard first chargeback: answer by +14, the scheme limit +45.
    expect(chargebackDeadline(base, config, "2026-02-15")).toMatchObject({ status: "overdue", answerBy: "2026-01-15", expiresOn: "2026-02-15" });
    expect(chargebackDeadline(base, config, "2026-02-16")).toMatchObject({ status: "expired", expiresOn: "2026-02-15" });
    expect(chargebackDeadline({ ...base, merchant_decision: "Accept CB" }, config, "2026-06-01").status).toBe("answered");
    // A Visa limit below its window: the answer-by date is the expiry date, so no day is overdue.
    const tight = deadlineConfigFromEnv({ DEADLINE_DAYS_VISA_PRE_ARBITRATION: "40", SCHEME_LIMIT_DAYS_VISA_PRE_ARBITRATION: "25" });
    const visaCase = { card: "411111%0001", case_date: "2026-03-01" };
    expect(preArbitrationDeadline(visaCase, tight, "2026-03-26")).toMatchObject({ status: "due_soon", answerBy: "2026-03-26", expiresOn: "2026-03-26" });
    expect(preArbitrationDeadline(visaCase, tight, "2026-03-27").status).toBe("expired");
  });

  it("an unknown scheme expires on the limit of the scheme that gave its answer-by date, the smaller on a tie", () => {
    const tie = deadlineConfigFromEnv({ SCHEME_LIMIT_DAYS_MC_PRE_ARBITRATION: "40", SCHEME_LIMIT_DAYS_VISA_PRE_ARBITRATION: "20" });
    expect(expiryDays(tie, null, "pre_arbitration")).toBe(20);
    expect(expiryDays(tie, "MC", "pre_arbitration")).toBe(40);
    const visaFirst = deadlineConfigFromEnv({ DEADLINE_DAYS_MC_PRE_ARBITRATION: "20", DEADLINE_DAYS_VISA_PRE_ARBITRATION: "5", SCHEME_LIMIT_DAYS_VISA_PRE_ARBITRATION: "35" });
    expect(expiryDays(visaFirst, null, "pre_arbitration")).toBe(35);
    const mcFirst = deadlineConfigFromEnv({ DEADLINE_DAYS_MC_PRE_ARBITRATION: "5", SCHEME_LIMIT_DAYS_MC_PRE_ARBITRATION: "12", SCHEME_LIMIT_DAYS_VISA_PRE_ARBITRATION: "20" });
    expect(expiryDays(mcFirst, null, "pre_arbitration")).toBe(12);
    // The drawer of a case with an unknown BIN uses the same rule.
    expect(preArbitrationDeadline({ card: "601100%0001", case_date: "2026-03-01" }, tie, "2026-03-22")).toMatchObject({ status: "expired", expiresOn: "2026-03-21" });
  });

  it("tells due, overdue and expired apart on both sides of each date", () => {
    expect(statusOn("2026-01-15", "2026-01-15", "2026-02-15")).toBe("due");
    expect(statusOn("2026-01-16", "2026-01-15", "2026-02-15")).toBe("overdue");
    expect(statusOn("2026-02-15", "2026-01-15", "2026-02-15")).toBe("overdue");
    expect(statusOn("2026-02-16", "2026-01-15", "2026-02-15")).toBe("expired");
    expect(statusOn(11, 10, 10)).toBe("expired");
    expect(statusOn(10, 10, 10)).toBe("due");
  });

  it("pre-arbitration counts from the case date, scheme from the BIN", () => {
    const d = preArbitrationDeadline({ card: "411111%1234", case_date: "2026-02-08" }, config, "2026-02-10");
    expect(d).toMatchObject({ scheme: "VISA", schemeInferred: true, answerBy: "2026-02-22" });
  });

  it("an unknown scheme takes whichever window ends first, counting the scheme limits too", () => {
    // MC's acquirer window is shorter, but its scheme limit cuts VISA's window shorter still.
    const config = deadlineConfigFromEnv({ DEADLINE_DAYS_MC_PRE_ARBITRATION: "10", DEADLINE_DAYS_VISA_PRE_ARBITRATION: "20", SCHEME_LIMIT_DAYS_VISA_PRE_ARBITRATION: "7" });
    expect(windowDays(config, null, "pre_arbitration")).toBe(7);
    expect(preArbitrationDeadline({ card: "371449%1234", case_date: "2026-02-01" }, config, "2026-02-01")).toMatchObject({ scheme: "VISA", answerBy: "2026-02-08" });
    expect(preArbitrationDeadline({ card: "512345%1234", case_date: "2026-02-01" }, config, "2026-02-01")).toMatchObject({ scheme: "MC", answerBy: "2026-02-11" });
    // The same rule for a chargeback whose card_type names neither scheme.
    const cb = chargebackDeadline({ card_type: "AMEX", function_code: 450, chb_proc_date: "2026-03-01" }, deadlineConfigFromEnv({ DEADLINE_DAYS_MC_FIRST_CHARGEBACK: "10", SCHEME_LIMIT_DAYS_VISA_FIRST_CHARGEBACK: "5" }), "2026-03-01");
    expect(cb).toMatchObject({ scheme: "VISA", windowDays: 5, answerBy: "2026-03-06" });
    expect(windowDays(DEFAULT_DEADLINE_CONFIG, "MC", "first_chargeback")).toBe(14);
    expect(windowDays(deadlineConfigFromEnv({ DEADLINE_DAYS_MC_FIRST_CHARGEBACK: "60" }), "MC", "first_chargeback")).toBe(45);
  });

  it("tells whether a dispute's current item needs an answer", () => {
    const cb = { kind: "chargeback", card_type: "VISA", function_code: 453, rev_indicator: " ", chb_proc_date: "2026-01-05", merchant_decision: null } as const;
    expect(disputeState(cb)).toEqual({ needsAnswer: true, stage: "first_chargeback", scheme: "VISA", baseDate: "2026-01-05" });
    expect(disputeState({ ...cb, function_code: 454 }).stage).toBe("arbitration_chargeback");
    expect(disputeState({ ...cb, rev_indicator: "R" }).needsAnswer).toBe(false);
    expect(disputeState({ ...cb, merchant_decision: "Accept CB" }).needsAnswer).toBe(false);
    expect(disputeState({ ...cb, function_code: 452 })).toMatchObject({ needsAnswer: false, stage: null });
    const pa = { kind: "pre_arbitration", card: "222100%0001", case_date: "2026-02-03", merchant_decision: null } as const;
    expect(disputeState(pa)).toEqual({ needsAnswer: true, stage: "pre_arbitration", scheme: "MC", baseDate: "2026-02-03" });
    expect(disputeState({ ...pa, card: "272100%0001" }).scheme).toBeNull();
    expect(disputeState({ ...pa, card: "272099%0001" }).scheme).toBe("MC");
    expect(disputeState({ ...pa, card: "560000%0001" }).scheme).toBeNull();
    expect(disputeState({ ...pa, card: "400000%0001" }).scheme).toBe("VISA");
    expect(disputeState({ ...pa, merchant_decision: "rebuttal" }).needsAnswer).toBe(false);
  });

  it("numbers calendar days and back", () => {
    expect(dayNumber("1970-01-01")).toBe(0);
    expect(dayNumber("2026-03-01")! - dayNumber("2026-02-28")!).toBe(1);
    expect(dayNumber("2026-02-29")).toBeUndefined();
    for (const date of ["0001-01-01", "0099-12-31", "1969-12-31", "2028-02-29", "9999-12-31"]) expect(dateOfDay(dayNumber(date)!)).toBe(date);
  });

  it("refuses a malformed override instead of moving every date", () => {
    expect(() => deadlineConfigFromEnv({ DEADLINE_DAYS_MC_PRE_ARBITRATION: "ten" })).toThrow(DeadlineConfigError);
    expect(() => deadlineConfigFromEnv({ SCHEME_LIMIT_DAYS_MC_FIRST_CHARGEBACK: "400" })).toThrow(DeadlineConfigError);
  });

  it("date arithmetic works on calendar dates only", () => {
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addDays("2026-02-30", 1)).toBeUndefined();
  });
});

describe("labels", () => {
  it("names function codes and unknown codes", () => {
    expect(functionCodeLabel(451)).toBe("451 Arbitration Chargeback (Full)");
    expect(functionCodeLabel(999)).toBe("999 — unknown code");
  });

  it("looks reason codes up per scheme; unknown codes still show", () => {
    expect(findReasonCode(4837, "MC")?.category).toBe("fraud");
    expect(reasonCodeLabel(4837, "VISA")).toBe("4837 — unknown code");
    expect(reasonCodeLabel(1234)).toBe("1234 — unknown code");
  });

  it("tells the scheme from a masked card number", () => {
    expect(schemeFromCard("545454%1234")).toBe("MC");
    expect(schemeFromCard("222100%1234")).toBe("MC");
    expect(schemeFromCard("411111%1234")).toBe("VISA");
    expect(schemeFromCard("371449%1234")).toBeUndefined();
    expect(schemeFromCard("510000%1234")).toBe("MC");
    expect(schemeFromCard("559999%1234")).toBe("MC");
    expect(schemeFromCard("500000%1234")).toBeUndefined();
    expect(schemeFromCard("560000%1234")).toBeUndefined();
    expect(schemeFromCard("222099%1234")).toBeUndefined();
    expect(schemeFromCard("272099%1234")).toBe("MC");
    expect(schemeFromCard("272100%1234")).toBeUndefined();
  });
});
