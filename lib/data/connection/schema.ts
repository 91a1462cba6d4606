import type { ColumnType, Generated } from "kysely";
import { kindMap, type RecordKind } from "@/lib/domain/kinds";

/** BIGINT columns: the drivers hand back numbers (SQLite) or numbers via our pg type parser. */
type Int = ColumnType<number, number | bigint, number | bigint>;

interface RecordBase {
  id: Int;
  shop_code: string;
  file_id: Int;
}

export interface ChargebackTable extends RecordBase {
  bank_id: string;
  file_date: string;
  card: string;
  acq_ref_nr: string;
  merchant_id: string;
  merchant_name: string | null;
  reason_code: Int;
  parent_mrch_id: string | null;
  parent_mrch_name: string | null;
  mcc_code: string | null;
  eci_sli: string | null;
  doc_indicator: string | null;
  chb_proc_date: string;
  comments: string | null;
  function_code: Int;
  function_code_name: string | null;
  rev_indicator: string | null;
  acq_bin: string | null;
  chb_refer_num: string | null;
  card_type: string;
  chb_tr_date: string | null;
  /** amounts: integer minor units */
  chb_amount: Int;
  chb_ccy: string;
  chb_settl_amount: Int | null;
  chb_settl_ccy: string | null;
  chb_amount_transaction_ccy: Int | null;
  tr_amount: Int | null;
  tr_ccy: string | null;
  tr_date_time: string | null;
  rev_amount: Int | null;
  rev_ccy: string | null;
  rev_date_time: string | null;
  payment_id: string;
  xid: string | null;
  merchant_decision: string | null;
  merchant_resp_date: string | null;
  merchant_comments: string | null;
  merchant_iban_code: string | null;
  transaction_id: string | null;
  card_acceptor_id: string | null;
  payment_order_nr: string | null;
}

export interface PreArbitrationTable extends RecordBase {
  bank_id: string;
  file_date: string;
  card: string;
  acq_ref_nr: string;
  merchant_id: string;
  merchant_name: string | null;
  tr_date_time: string | null;
  amount: Int;
  ccy: string;
  xid: string | null;
  transaction_id: string | null;
  card_acceptor_id: string | null;
  case_date: string;
  case_stage: string;
  fdl_comments: string | null;
  merchant_decision: string | null;
  payment_id: string;
  payment_order_nr: string | null;
}

export interface ImportedFileTable {
  id: Generated<number>;
  name: string;
  sha256: string;
  kind: RecordKind;
  record_count: Int;
  /** epoch milliseconds */
  imported_at: Int;
  /** the id of the file's first record (its records are consecutive ids); null for an empty file (migration 016) */
  first_record_id: Int | null;
}

export interface ShopTable {
  shop_code: string;
  /** AES-256-GCM ciphertext of the API password (lib/auth/secrets.ts) */
  password_enc: string;
  /** JSON array of shop codes, always including shop_code */
  access_list: string;
  created_at: Int;
}

export interface UserTable {
  id: Generated<number>;
  /** lower-cased */
  email: string;
  /** scrypt hash (lib/auth/passwords.ts) */
  password_hash: string;
  access_list: string;
  created_at: Int;
}

export interface SessionTable {
  /** SHA-256 of the cookie token: a stolen database holds no usable session */
  token_hash: string;
  user_id: Int;
  created_at: Int;
  expires_at: Int;
}

export interface UsedNonceTable {
  shop_code: string;
  nonce: string;
  used_at: Int;
}

/** Sign-in attempts per account and per client address in the current window (docs/api.md, "Dashboard sign-in"). */
export interface LoginThrottleTable {
  key: string;
  attempts: Int;
  window_start: Int;
}

/** The API rate limit's token bucket per credential, shared by every instance (PostgreSQL only). */
export interface RateBucketTable {
  credential: string;
  tokens: number;
  updated_ms: Int;
  taken: boolean;
}

/**
 * PostgreSQL only (migration 012): each record's JSON as the API writes it (`recordJson`), written
 * by the import beside the record; pages read it instead of writing it again on every read.
 */
export interface RecordJsonTable {
  record_id: Int;
  json: string;
}

export interface RecordCountTable {
  kind: RecordKind;
  shop_code: string;
  file_date: string;
  n: Int;
}

/** All records of a kind and shop (migration 005). */
export interface RecordShopTable {
  kind: RecordKind;
  shop_code: string;
  n: Int;
}

/**
 * One row per dispute: the records of a shop with the same acq_ref_nr (docs/api.md, "Worklist"), kept by the
 * import in the same transaction as the records (migration 008, lib/data/aggregates/disputes.ts).
 */
export interface DisputeTable {
  shop_code: string;
  acq_ref_nr: string;
  /** the current item: the latest pre-arbitration case, else the latest chargeback */
  kind: RecordKind;
  record_id: Int;
  /** 1 when the current item waits for the merchant's answer, else 0 */
  needs_answer: Int;
  /** first_chargeback, arbitration_chargeback or pre_arbitration; null for an unknown function code */
  stage: string | null;
  /** MC or VISA; EITHER when the BIN names neither (the earlier of both windows applies) */
  scheme: string;
  /** days since 1970-01-01 of the base date (chb_proc_date or case_date) */
  base_day: Int;
}

/** Disputes that need an answer, of all shops, per stage, scheme and base day. */
export interface DisputeCountTable {
  stage: string;
  scheme: string;
  base_day: Int;
  n: Int;
}

/** Per kind, dim ("" or a value dimension) and file date: that day's summary groups for every shop, as JSON (migration 019, day-groups.ts). */
export interface RecordDayGroupsTable {
  kind: RecordKind;
  dim: string;
  period: string;
  /** how many group objects `json` holds (more than MAX_GROUPS: their number, and no text) */
  groups: number;
  n: Int;
  json: string;
}

/** Per kind, dimension, grain, shop ("" for all) and period: counts and exact sums per currency (migration 007, record-sums.ts). */
export interface RecordSumTable {
  kind: RecordKind;
  /** "" or a value dimension of docs/api.md, "Summaries" */
  dim: string;
  grain: "day" | "month";
  shop_code: string;
  /** YYYY-MM-DD by day, YYYY-MM by month */
  period: string;
  value: string;
  ccy: string;
  n: Int;
  reversals: Int;
  /** minor units */
  amount: Int;
  reversal_amount: Int;
}

/** A webhook endpoint of a shop credential (docs/api.md, "Webhooks"; migration 009). */
export interface WebhookEndpointTable {
  /** "we_" + random hex */
  id: string;
  shop_code: string;
  url: string;
  /** AES-256-GCM ciphertext of the signing secret (lib/auth/secrets.ts), bound to "webhook:<id>" */
  secret_enc: string;
  created_at: Int;
  /** set by `webhook remove`: no new events, pending ones cancelled */
  removed_at: Int | null;
}

/** One event for one endpoint and its delivery state (lib/webhooks). */
export interface WebhookDeliveryTable {
  id: Generated<number>;
  /** "evt_" + random hex, the body's id */
  event_id: string;
  endpoint_id: string;
  type: string;
  /** the JSON body exactly as it is sent */
  body: string;
  created_at: Int;
  state: "pending" | "delivered" | "failed" | "cancelled";
  /** attempts claimed so far (the number of the attempt in flight while claimed) */
  attempts: Int;
  next_attempt_at: Int;
  /** while an instance sends it: the lease's end; a lease past its end may be claimed again */
  claimed_until: Int | null;
  claim_token: string | null;
}

/** Every attempt to deliver (lib/webhooks). */
export interface WebhookAttemptTable {
  delivery_id: Int;
  attempt: Int;
  endpoint_id: string;
  at: Int;
  /** the HTTP status answered, or null when there was none (then error says why) */
  status: Int | null;
  error: string | null;
  duration_ms: Int;
}

/**
 * Per shop code with records: the merchant and parent merchant its records name, each half with
 * the file it came from (migration 013, lib/data/aggregates/shop-directory.ts; docs/api.md, "Shop directory").
 */
export interface ShopDirectoryTable {
  shop_code: string;
  /** of the shop's last record in its latest file of either kind (greatest file date, then file id) */
  merchant_id: string;
  merchant_name: string | null;
  merchant_file_date: string;
  merchant_file_id: Int;
  /** of its last record in its latest chargeback file; all four null while the shop has no chargeback */
  parent_merchant_id: string | null;
  parent_merchant_name: string | null;
  parent_file_date: string | null;
  parent_file_id: Int | null;
}

/** A dashboard user's saved view (migration 014, lib/data/user-state/saved-views.ts; docs/api.md, "Saved views"). */
export interface SavedViewTable {
  id: Generated<number>;
  user_id: Int;
  /** a dashboard path of VIEW_PAGES (lib/schemas/saved-views.ts) */
  page: string;
  name: string;
  /** the trimmed, lower-cased name: unique per user */
  name_key: string;
  /** "" or "?..." */
  query: string;
  /** JSON object of column id to shown, or null */
  columns: string | null;
  /** 1 for the user's default view of the page (at most one), else 0 */
  is_default: Int;
  /** epoch milliseconds */
  created_at: Int;
  updated_at: Int;
}

/** A dashboard user's mail settings (docs/mail.md; migration 016); no row means the defaults. */
export interface MailSettingsTable {
  user_id: Int;
  /** "daily" | "weekly" | "off" (lib/mail/settings.ts) */
  digest: string;
  /** "HH:MM", 24-hour, in the user's zone */
  digest_at: string;
  /** an IANA time zone */
  zone: string;
  /** 1 when new-dispute alerts are on */
  alerts: Int;
  updated_at: Int;
}

/** One digest period composed for a user: claimed once, whether or not it had anything to say. */
export interface MailDigestTable {
  user_id: Int;
  /** the period's scheduled instant */
  period_at: Int;
  made_at: Int;
  /** the highest record id of each kind when the digest was made: the next one counts from there */
  chargeback_mark: Int;
  pre_arbitration_mark: Int;
  /** the message sent, null when there was nothing to say */
  message_id: Int | null;
}

/** One message to one user, stored before it is sent (lib/mail/store.ts). */
export interface MailMessageTable {
  id: Generated<number>;
  user_id: Int;
  /** "alert" | "digest" */
  kind: string;
  /** JSON of the message's facts (lib/mail/facts.ts); written into text when sent */
  facts: string;
  created_at: Int;
  /** "pending" | "retry" | "delivered" | "failed" */
  state: string;
  attempts: Int;
  next_attempt_at: Int;
  claimed_until: Int | null;
  claim_token: string | null;
  last_error: string | null;
  sent_at: Int | null;
}

export interface Database {
  disputes: DisputeTable;
  dispute_counts: DisputeCountTable;
  record_counts: RecordCountTable;
  record_sums: RecordSumTable;
  record_day_groups: RecordDayGroupsTable;
  record_shops: RecordShopTable;
  chargebacks: ChargebackTable;
  pre_arbitrations: PreArbitrationTable;
  chargebacks_json: RecordJsonTable;
  pre_arbitrations_json: RecordJsonTable;
  imported_files: ImportedFileTable;
  shops: ShopTable;
  users: UserTable;
  sessions: SessionTable;
  used_nonces: UsedNonceTable;
  login_throttle: LoginThrottleTable;
  rate_buckets: RateBucketTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  shop_directory: ShopDirectoryTable;
  saved_views: SavedViewTable;
  mail_settings: MailSettingsTable;
  mail_digests: MailDigestTable;
  mail_messages: MailMessageTable;
}

/** The table that holds each kind of record (lib/domain/kinds.ts). */
export const RECORD_TABLES = kindMap("table") satisfies Record<RecordKind, keyof Database>;
export type RecordTable = (typeof RECORD_TABLES)[RecordKind];

/** PostgreSQL: the table that holds each kind's records' JSON (RecordJsonTable). */
export const RECORD_JSON_TABLES = kindMap("jsonTable") satisfies Record<RecordKind, keyof Database>;
