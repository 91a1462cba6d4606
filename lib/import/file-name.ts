import { CHARGEBACK_BANK_ID, type RecordKind } from "@/lib/domain/fields";
import { isCalendarDate } from "@/lib/schemas/search";

export interface FileName {
  kind: RecordKind;
  bankId: string;
  fileDate: string;
}

export const FILE_NAME_RULE = "must be CHB_<YYYYMMDD>.csv or PREARB_<BANKID>_<YYYYMMDD>.csv (BANKID letters and digits) with a real date";

/** CHB_<YYYYMMDD>.csv or PREARB_<BANKID>_<YYYYMMDD>.csv (case-sensitive); null for any other name. */
export function parseFileName(name: string): FileName | null {
  const m = /^(?:CHB|PREARB_([A-Za-z0-9]{1,20}))_(\d{4})(\d{2})(\d{2})\.csv$/.exec(name);
  if (!m) return null;
  const fileDate = `${m[2]}-${m[3]}-${m[4]}`;
  if (!isCalendarDate(fileDate)) return null;
  return m[1] === undefined ? { kind: "chargeback", bankId: CHARGEBACK_BANK_ID, fileDate } : { kind: "pre_arbitration", bankId: m[1], fileDate };
}
