import { addDays, daysBetween } from "./calendar";
import { functionCodeInfo, isReversal, schemeFromCard } from "./labels";


/**
 * Answer-by dates (DOMAIN notes, "Time limits"). The merchant must answer by the base date (the
 * chargeback's processing date, or the pre-arbitration case date) plus the acquirer's window for
 * that scheme and stage, and never later than the scheme's own limit. Every day count here is a
 * default that the operator overrides by environment variable, because scheme rules change with
 * bulletins and acquirers set their own (shorter) windows.
 */

export const SCHEMES = ["MC", "VISA"] as const;
export type Scheme = (typeof SCHEMES)[number];

export const STAGES = ["first_chargeback", "arbitration_chargeback", "pre_arbitration"] as const;
export type Stage = (typeof STAGES)[number];

export type DayTable = Record<Scheme, Record<Stage, number>>;

export interface DeadlineConfig {
  /** days the acquirer gives the merchant, counted from the base date */
  acquirerDays: DayTable;
  /** the scheme's limit for the acquirer: the outer bound of any answer-by date */
  schemeLimitDays: DayTable;
  /** an open case this close to its answer-by date is flagged as due soon */
  dueSoonDays: number;
}

/**
 * Scheme limits in calendar days: Mastercard 45 and Visa 30 for the answer to a first chargeback
 * (second presentment), 30 for both to answer a pre-arbitration case. Mastercard's legacy
 * arbitration chargeback (451/454) gets the second-cycle 45 days; Visa has no such stage, so its
 * row only matters for a mislabelled record and uses Visa's 30.
 */
export const DEFAULT_SCHEME_LIMIT_DAYS: DayTable = {
  MC: { first_chargeback: 45, arbitration_chargeback: 45, pre_arbitration: 30 },
  VISA: { first_chargeback: 30, arbitration_chargeback: 30, pre_arbitration: 30 },
};

/**
 * Published acquirer/PSP windows run from 3 to 21 days; 14 is the middle of that range, so the
 * default neither cries wolf nor lets a merchant miss a typical cut-off. Operators set their own.
 */
export const DEFAULT_ACQUIRER_DAYS: DayTable = {
  MC: { first_chargeback: 14, arbitration_chargeback: 14, pre_arbitration: 14 },
  VISA: { first_chargeback: 14, arbitration_chargeback: 14, pre_arbitration: 14 },
};

export const DEFAULT_DUE_SOON_DAYS = 3;

/** Supporting documents may arrive up to this many days after chb_proc_date (docs/api.md, "Response body"). */
export const DOCUMENTS_ARRIVE_WITHIN_DAYS = 8;

export const DEFAULT_DEADLINE_CONFIG: DeadlineConfig = {
  acquirerDays: DEFAULT_ACQUIRER_DAYS,
  schemeLimitDays: DEFAULT_SCHEME_LIMIT_DAYS,
  dueSoonDays: DEFAULT_DUE_SOON_DAYS,
};

export class DeadlineConfigError extends Error {
  override name = "DeadlineConfigError";
}

/** DEADLINE_DAYS_MC_FIRST_CHARGEBACK, SCHEME_LIMIT_DAYS_VISA_PRE_ARBITRATION, ... */
export function envName(prefix: "DEADLINE_DAYS" | "SCHEME_LIMIT_DAYS", scheme: Scheme, stage: Stage): string {
  return `${prefix}_${scheme}_${stage.toUpperCase()}`;
}

function days(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  // A typo must not quietly move every answer-by date: refuse it loudly.
  if (!/^\d{1,3}$/.test(raw) || Number(raw) > 365) throw new DeadlineConfigError(`${name} must be a whole number of days from 0 to 365, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** The deadline windows with the server's environment applied; pass the result to the client. */
export function deadlineConfigFromEnv(env: Record<string, string | undefined> = process.env): DeadlineConfig {
  const acquirerDays = {} as DayTable;
  const schemeLimitDays = {} as DayTable;
  for (const scheme of SCHEMES) {
    acquirerDays[scheme] = {} as Record<Stage, number>;
    schemeLimitDays[scheme] = {} as Record<Stage, number>;
    for (const stage of STAGES) {
      acquirerDays[scheme][stage] = days(env, envName("DEADLINE_DAYS", scheme, stage), DEFAULT_ACQUIRER_DAYS[scheme][stage]);
      schemeLimitDays[scheme][stage] = days(env, envName("SCHEME_LIMIT_DAYS", scheme, stage), DEFAULT_SCHEME_LIMIT_DAYS[scheme][stage]);
    }
  }
  return { acquirerDays, schemeLimitDays, dueSoonDays: days(env, "DEADLINE_DUE_SOON_DAYS", DEFAULT_DUE_SOON_DAYS) };
}

/**
 * The days from the base date to the answer-by date (docs/api.md, "Worklist"): min(acquirer window, scheme
 * limit) of the scheme and stage; for a scheme that is not known, whichever scheme gives the
 * earlier date. The drawer and the worklist both take their windows from here.
 */
export function windowDays(config: DeadlineConfig, scheme: Scheme | null | undefined, stage: Stage): number {
  return scheme ? schemeWindow(config, scheme, stage) : schemeWindow(config, earlierScheme(config, stage), stage);
}

function schemeWindow(config: DeadlineConfig, scheme: Scheme, stage: Stage): number {
  return Math.min(config.acquirerDays[scheme][stage], config.schemeLimitDays[scheme][stage]);
}

/** The scheme whose window ends first for a stage (Mastercard on a tie). */
export function earlierScheme(config: DeadlineConfig, stage: Stage): Scheme {
  return schemeWindow(config, "MC", stage) <= schemeWindow(config, "VISA", stage) ? "MC" : "VISA";
}

/**
 * The days from the base date to the expiry date (docs/api.md, "Worklist"): the scheme's limit.
 * For a scheme that is not known, the limit of the scheme that gave the answer-by date, and the
 * smaller limit when both windows end on the same day, so that an expiry shown is never too late.
 */
export function expiryDays(config: DeadlineConfig, scheme: Scheme | null | undefined, stage: Stage): number {
  if (scheme) return config.schemeLimitDays[scheme][stage];
  const mc = schemeWindow(config, "MC", stage);
  const visa = schemeWindow(config, "VISA", stage);
  const limits = config.schemeLimitDays;
  return mc === visa ? Math.min(limits.MC[stage], limits.VISA[stage]) : limits[mc < visa ? "MC" : "VISA"][stage];
}

/** A dispute's status on a date, once it needs an answer (docs/api.md, "Worklist"). */
export const DISPUTE_STATUSES = ["due", "overdue", "expired"] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** What can still be answered: what the worklist lists when a request names no status. */
export const ANSWERABLE_STATUSES: readonly DisputeStatus[] = ["due", "overdue"];

/**
 * Due while the answer-by date is today or later; overdue after it until the expiry date (the
 * acquirer may still take a late answer); expired once the scheme's own limit has passed too.
 * Works on day numbers or on YYYY-MM-DD strings alike (both order as dates).
 */
export function statusOn<T extends number | string>(today: T, answerBy: T, expiresOn: T): DisputeStatus {
  return answerBy >= today ? "due" : today <= expiresOn ? "overdue" : "expired";
}

/** A dispute's current item (docs/api.md, "Worklist"): its latest pre-arbitration case, else its latest chargeback. */
export type CurrentItem =
  | ({ kind: "chargeback" } & Pick<ChargebackLike, "card_type" | "function_code" | "rev_indicator" | "chb_proc_date" | "merchant_decision">)
  | ({ kind: "pre_arbitration" } & PreArbitrationLike);

export interface DisputeState {
  /** no merchant decision, not a reversal, and for a chargeback function code 450, 451, 453 or 454 */
  needsAnswer: boolean;
  /** null when the function code has no answer window */
  stage: Stage | null;
  /** null when the scheme is not known: then whichever scheme gives the earlier date applies */
  scheme: Scheme | null;
  /** chb_proc_date of a chargeback, case_date of a case */
  baseDate: string | null;
}

/**
 * Whether a dispute waits for the merchant's answer, and what its answer-by date is counted from.
 * A chargeback's scheme is its card_type; a case's comes from the card's BIN (docs/api.md, "Worklist").
 */
export function disputeState(item: CurrentItem): DisputeState {
  if (item.kind === "pre_arbitration") {
    return { needsAnswer: !item.merchant_decision, stage: "pre_arbitration", scheme: schemeFromCard(item.card) ?? null, baseDate: item.case_date ?? null };
  }
  const stage = functionCodeInfo(item.function_code)?.stage ?? null;
  const scheme = item.card_type === "MC" || item.card_type === "VISA" ? item.card_type : null;
  const needsAnswer = !item.merchant_decision && !isReversal(item.rev_indicator) && stage !== null;
  return { needsAnswer, stage, scheme, baseDate: item.chb_proc_date ?? null };
}

export type DeadlineStatus = "expired" | "overdue" | "due_soon" | "open" | "answered" | "not_applicable";

export interface Deadline {
  status: DeadlineStatus;
  /** why there is no deadline (not_applicable only) */
  reason?: string;
  stage?: Stage;
  scheme?: Scheme;
  /** true when the scheme was guessed (from the card's BIN, or the stricter of both) */
  schemeInferred?: boolean;
  baseDate?: string;
  /** the days actually applied: min(acquirer window, scheme limit) */
  windowDays?: number;
  acquirerDays?: number;
  schemeLimitDays?: number;
  answerBy?: string;
  /** the base date plus the scheme limit: after it the dispute can no longer be answered */
  expiresOn?: string;
  /** days from today to answerBy; negative when overdue or expired */
  daysLeft?: number;
}

export interface ChargebackLike {
  card_type?: string | null;
  function_code?: number | null;
  rev_indicator?: string | null;
  chb_proc_date?: string | null;
  merchant_decision?: string | null;
}

export interface PreArbitrationLike {
  card?: string | null;
  case_date?: string | null;
  merchant_decision?: string | null;
}

/** `known`: the scheme came from the record (card type or BIN), not from the earlier of both windows. */
function finish(base: Omit<Deadline, "status" | "answerBy" | "expiresOn" | "daysLeft" | "windowDays">, known: boolean, answered: boolean, config: DeadlineConfig, today: string): Deadline {
  const windowDays = Math.min(base.acquirerDays!, base.schemeLimitDays!);
  const answerBy = addDays(base.baseDate!, windowDays);
  if (!answerBy) return { status: "not_applicable", reason: `the base date ${base.baseDate} is not a calendar date` };
  // The same limits as the worklist's statuses, so the drawer never disagrees with the list.
  const schemeLimitDays = expiryDays(config, known ? base.scheme : null, base.stage!);
  const expiresOn = addDays(base.baseDate!, schemeLimitDays)!;
  const daysLeft = daysBetween(today, answerBy)!;
  const state = statusOn(today, answerBy, expiresOn);
  const status: DeadlineStatus = answered ? "answered" : state !== "due" ? state : daysLeft <= config.dueSoonDays ? "due_soon" : "open";
  return { ...base, schemeLimitDays, status, windowDays, answerBy, expiresOn, daysLeft };
}

export function chargebackDeadline(record: ChargebackLike, config: DeadlineConfig, today: string): Deadline {
  if (isReversal(record.rev_indicator)) {
    return { status: "not_applicable", reason: "a reversal credits the acquirer back; there is nothing to answer" };
  }
  const info = functionCodeInfo(record.function_code);
  if (!info) return { status: "not_applicable", reason: `function code ${record.function_code ?? "—"} has no known answer window` };
  if (!record.chb_proc_date) return { status: "not_applicable", reason: "the record has no processing date" };
  const known = record.card_type === "MC" || record.card_type === "VISA";
  // Unknown scheme: whichever gives the earlier date, so that the date shown is never too late.
  const scheme: Scheme = known ? (record.card_type as Scheme) : earlierScheme(config, info.stage);
  return finish(
    {
      stage: info.stage,
      scheme,
      schemeInferred: !known,
      baseDate: record.chb_proc_date,
      acquirerDays: config.acquirerDays[scheme][info.stage],
      schemeLimitDays: config.schemeLimitDays[scheme][info.stage],
    },
    known,
    Boolean(record.merchant_decision),
    config,
    today,
  );
}

export function preArbitrationDeadline(record: PreArbitrationLike, config: DeadlineConfig, today: string): Deadline {
  if (!record.case_date) return { status: "not_applicable", reason: "the record has no case date" };
  const stage: Stage = "pre_arbitration";
  const fromBin = schemeFromCard(record.card);
  const scheme: Scheme = fromBin ?? earlierScheme(config, stage);
  return finish(
    {
      stage,
      scheme,
      // Pre-arbitration records carry no card_type: the scheme always comes from the BIN.
      schemeInferred: true,
      baseDate: record.case_date,
      acquirerDays: config.acquirerDays[scheme][stage],
      schemeLimitDays: config.schemeLimitDays[scheme][stage],
    },
    fromBin !== undefined,
    Boolean(record.merchant_decision),
    config,
    today,
  );
}

/** The date until which supporting documents may still arrive, when the issuer provided some. */
export function documentsExpectedBy(chbProcDate: string | null | undefined): string | undefined {
  return chbProcDate ? addDays(chbProcDate, DOCUMENTS_ARRIVE_WITHIN_DAYS) : undefined;
}

export const STAGE_LABELS: Record<Stage, string> = {
  first_chargeback: "first chargeback",
  arbitration_chargeback: "arbitration chargeback",
  pre_arbitration: "pre-arbitration",
};
