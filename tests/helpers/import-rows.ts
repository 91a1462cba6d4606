import type { RecordKind } from "@/lib/domain/fields";

/** The smallest valid import row of each kind: every required cell filled (docs/api.md, "Import of acquirer files"). */
export const MINIMAL_ROW: Record<RecordKind, Readonly<Record<string, string>>> = {
  chargeback: {
    shop_code: "shop-1",
    card: "512345%1234",
    acq_ref_nr: "ARN-1",
    merchant_id: "M1",
    reason_code: "4837",
    chb_proc_date: "2026-01-02",
    function_code: "450",
    card_type: "MC",
    chb_amount: "10.00",
    chb_ccy: "EUR",
    payment_id: "PAY-1",
  },
  pre_arbitration: {
    shop_code: "shop-1",
    card: "411111%0001",
    acq_ref_nr: "ARN-2",
    merchant_id: "M2",
    amount: "5.00",
    ccy: "EUR",
    case_date: "2026-02-01",
    case_stage: "Pre-arbitration",
    payment_id: "PA-1",
  },
};
