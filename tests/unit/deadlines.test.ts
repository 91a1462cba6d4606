import { describe, expect, it } from "vitest";
import { addDays, chargebackDeadline, DEFAULT_DEADLINE_CONFIG, deadlineConfigFromEnv, DeadlineConfigError, preArbitrationDeadline } from "@/lib/domain/deadlines";
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

  it("pre-arbitration counts from the case date, scheme from the BIN", () => {
    const d = preArbitrationDeadline({ card: "411111%1234", case_date: "2026-02-08" }, config, "2026-02-10");
    expect(d).toMatchObject({ scheme: "VISA", schemeInferred: true, answerBy: "2026-02-22" });
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
  });
});
