// Generated from lib/openapi/document.ts by `npm run openapi:types` (openapi-typescript): do not edit.

export interface paths {
    "/api/chargeback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search chargebacks
         * @description Returns a page of chargeback records. Fields and how they are written: docs/api.md, "Response body".
         */
        post: operations["searchChargebacks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pre_arbitration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search pre-arbitration cases
         * @description Returns a page of pre-arbitration records. Fields and how they are written: docs/api.md, "Response body".
         */
        post: operations["searchPreArbitrations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chargeback/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Summarise chargebacks
         * @description Extension of the seed API. Counts and exact sums per currency of the chargebacks that the search with the same filters returns (no paging or sorting), grouped by 0 to 2 dimensions, so that nobody adds up pages. Amounts of different currencies are never added together. Authentication, scope, errors and the order of checks are those of the searches.
         */
        post: operations["summarizeChargebacks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/pre_arbitration/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Summarise pre-arbitration cases
         * @description Extension of the seed API. Counts and exact sums per currency of the pre-arbitration cases that the search with the same filters returns (no paging or sorting), grouped by 0 to 2 dimensions, so that nobody adds up pages. Amounts of different currencies are never added together. Authentication, scope, errors and the order of checks are those of the searches.
         */
        post: operations["summarizePreArbitrations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/worklist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Worklist: disputes that need an answer, with their status on a date
         * @description A dispute is the records (chargebacks and cases) of one shop with the same acq_ref_nr; its current item is its latest case (case_date, then ID), else its latest chargeback (chb_proc_date, then ID). It needs an answer when the current item has no merchant_decision, is not a reversal and, for a chargeback, has function code 450, 451, 453 or 454. answer_by = base date (chb_proc_date or case_date) + min(DEADLINE_DAYS_<scheme>_<stage>, SCHEME_LIMIT_DAYS_<scheme>_<stage>) calendar days; scheme: card_type, or for a case the BIN (4 VISA, 51-55 and 2221-2720 MC, else the earlier of both). Its expiry date = base date + SCHEME_LIMIT_DAYS_<scheme>_<stage> (for an unknown scheme, the limit of the scheme that gave answer_by, the smaller on a tie). On the date as_of it is due (answer_by >= as_of), overdue (answer_by < as_of <= expiry date) or expired (expiry date < as_of): an expired dispute can no longer be answered, so by default only due and overdue disputes are listed. Order: answer_by ascending, chargebacks before cases, then ID ascending; exact totals.
         */
        post: operations["listWorklist"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Overview of a period
         * @description Extension of the seed API. The figures of the dashboard's overview in one answer, read in one snapshot: for the chosen file-date period and the one of the same length just before it, within the scope (shop_codes, else the caller's access list), these summaries, each exactly what the summary endpoint answers for the same filters:
         *
         *     - `chargebacks`: chargebacks of the period, the chargeback summary with group_by []
         *     - `chargebacks_previous`: chargebacks of the previous period, the chargeback summary with group_by []
         *     - `pre_arbitrations`: pre-arbitration cases of the period, the pre_arbitration summary with group_by []
         *     - `pre_arbitrations_previous`: pre-arbitration cases of the previous period, the pre_arbitration summary with group_by []
         *     - `by_month_and_scheme`: chargebacks of the period by month and scheme, the chargeback summary with group_by ["month","card_type"]
         *     - `by_reason`: chargebacks of the period by scheme and reason code, the chargeback summary with group_by ["card_type","reason_code"]
         *     - `by_function_code`: chargebacks of the period by function code (the stage), the chargeback summary with group_by ["function_code"]
         *     - `by_documents`: chargebacks of the period with and without issuer documents, the chargeback summary with group_by ["documents"]
         *     - `by_shop`: chargebacks of the period by shop, the chargeback summary with group_by ["shop_code"]
         *     - `by_merchant`: chargebacks of the period by merchant, the chargeback summary with group_by ["merchant_id"]
         *
         *     and `excessive_chargebacks`, Mastercard's Excessive Chargeback Program as counts per month and merchant. Authentication, scope, errors and the order of checks are those of the searches.
         */
        post: operations["getOverview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/shops": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Shop directory: the merchant and parent merchant of each shop
         * @description Extension of the seed API. One entry per shop code of the caller's access list, in bytewise order: the merchant id and name of the shop's last record in its latest file of either kind (greatest file date, then the later import), and the parent merchant id and name of its last record in its latest chargeback file (pre-arbitration records carry none). Null where the shop has no such record. The body takes no fields. Authentication, errors and the order of checks are those of the searches.
         */
        post: operations["listShops"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** Chargeback search */
        ChargebackSearch: {
            /** @description First file date to return (inclusive). */
            file_date_from?: string | null;
            /** @description Last file date to return (inclusive). */
            file_date_to?: string | null;
            /** @description Shop codes, each inside the caller's access list (else 403); the values combine with OR. An empty array is the same as omitting the field. */
            shop_codes?: string[] | null;
            /** @description Merchant identification number (MID), exact match. */
            merchant_id?: string | null;
            /** @description Acquirer reference numbers; the values combine with OR. An empty array is the same as omitting the field. */
            acq_ref_nrs?: string[] | null;
            /** @description Order ids / bill numbers in the merchant system; the values combine with OR. An empty array is the same as omitting the field. */
            payment_order_nrs?: string[] | null;
            /** @description Page number, from 0. Default 0. A page beyond the last returns an empty content. */
            page?: number | null;
            /** @description Records per page, 10 to 1000. Default 10. Values outside the range are rejected, never clamped. */
            per_page?: number | null;
            /** @description asc or desc. Default asc. Ties are broken by ID in the same direction. */
            sortOrder?: ("asc" | "desc") | null;
            /** @description Parent MID in a two-level merchant hierarchy, exact match. */
            parent_merchant_id?: string | null;
            /** @description Network-assigned transaction ids; the values combine with OR. An empty array is the same as omitting the field. */
            transaction_ids?: string[] | null;
            /** @description Sort key. Default ID (import order). */
            sortKey?: ("ID" | "SHOP_CODE" | "MERCHANT_ID" | "ACQ_REF_NR" | "PAYMENT_ORDER_NR" | "FILE_DATE") | null;
        };
        /** Pre-arbitration search */
        PreArbitrationSearch: {
            /** @description First file date to return (inclusive). */
            file_date_from?: string | null;
            /** @description Last file date to return (inclusive). */
            file_date_to?: string | null;
            /** @description Shop codes, each inside the caller's access list (else 403); the values combine with OR. An empty array is the same as omitting the field. */
            shop_codes?: string[] | null;
            /** @description Merchant identification number (MID), exact match. */
            merchant_id?: string | null;
            /** @description Acquirer reference numbers; the values combine with OR. An empty array is the same as omitting the field. */
            acq_ref_nrs?: string[] | null;
            /** @description Order ids / bill numbers in the merchant system; the values combine with OR. An empty array is the same as omitting the field. */
            payment_order_nrs?: string[] | null;
            /** @description Page number, from 0. Default 0. A page beyond the last returns an empty content. */
            page?: number | null;
            /** @description Records per page, 10 to 1000. Default 10. Values outside the range are rejected, never clamped. */
            per_page?: number | null;
            /** @description asc or desc. Default asc. Ties are broken by ID in the same direction. */
            sortOrder?: ("asc" | "desc") | null;
            /** @description Payment ids in the processing system; the values combine with OR. An empty array is the same as omitting the field. */
            payment_ids?: string[] | null;
            /** @description Sort key. Default ID (import order). No FILE_DATE key. */
            sortKey?: ("ID" | "SHOP_CODE" | "MERCHANT_ID" | "ACQ_REF_NR" | "PAYMENT_ORDER_NR") | null;
        };
        ChargebackPage: {
            /** @description Records of the requested page */
            content: components["schemas"]["Chargeback"][];
            /** @description ceil(totalElements / per_page); 0 when nothing matches */
            totalPages: number;
            /** @description Number of records matching the request inside the caller's scope */
            totalElements: number;
        };
        Chargeback: {
            /** @description Bank id */
            bank_id: string;
            /**
             * Format: date
             * @description File date (YYYY-MM-DD)
             */
            file_date: string;
            /** @description Card, masked as 123456%1234 */
            card: string;
            /** @description Acquirer reference number */
            acq_ref_nr: string;
            /** @description Merchant id */
            merchant_id: string;
            merchant_name: string | null;
            /** @description Reason code */
            reason_code: number;
            parent_mrch_id: string | null;
            parent_mrch_name: string | null;
            mcc_code: string | null;
            eci_sli: string | null;
            doc_indicator: (0 | 1 | " ") | null;
            /**
             * Format: date
             * @description Processing date (YYYY-MM-DD)
             */
            chb_proc_date: string;
            comments: string | null;
            /** @description Function code */
            function_code: number;
            function_code_name: string | null;
            rev_indicator: (" " | "R") | null;
            acq_bin: string | null;
            chb_refer_num: string | null;
            /**
             * @description Scheme
             * @enum {string}
             */
            card_type: "MC" | "VISA";
            chb_tr_date: string | null;
            /**
             * @description Chargeback amount. Exact decimal written with exactly two decimals, e.g. 120.50.
             * @example 120.5
             */
            chb_amount: number;
            /**
             * @description Chargeback currency (ISO 4217 alpha code)
             * @example EUR
             */
            chb_ccy: string;
            chb_settl_amount: number | null;
            chb_settl_ccy: string | null;
            chb_amount_transaction_ccy: number | null;
            tr_amount: number | null;
            tr_ccy: string | null;
            tr_date_time: string | null;
            rev_amount: number | null;
            rev_ccy: string | null;
            rev_date_time: string | null;
            /** @description Payment id */
            payment_id: string;
            xid: string | null;
            merchant_decision: ("Accept CB" | "Represent doc provided" | "Represent CR processed") | null;
            merchant_resp_date: string | null;
            merchant_comments: string | null;
            merchant_iban_code: string | null;
            transaction_id: string | null;
            card_acceptor_id: string | null;
            payment_order_nr: string | null;
        };
        PreArbitrationPage: {
            /** @description Records of the requested page */
            content: components["schemas"]["PreArbitration"][];
            /** @description ceil(totalElements / per_page); 0 when nothing matches */
            totalPages: number;
            /** @description Number of records matching the request inside the caller's scope */
            totalElements: number;
        };
        PreArbitration: {
            /** @description Bank id */
            bank_id: string;
            /**
             * Format: date
             * @description File date (YYYY-MM-DD)
             */
            file_date: string;
            /** @description Card, masked as 123456%1234 */
            card: string;
            /** @description Acquirer reference number */
            acq_ref_nr: string;
            /** @description Merchant id */
            merchant_id: string;
            merchant_name: string | null;
            tr_date_time: string | null;
            /**
             * @description Amount. Exact decimal written with exactly two decimals, e.g. 120.50.
             * @example 120.5
             */
            amount: number;
            /**
             * @description Currency (ISO 4217 alpha code)
             * @example EUR
             */
            ccy: string;
            xid: string | null;
            transaction_id: string | null;
            card_acceptor_id: string | null;
            /**
             * Format: date
             * @description Case date (YYYY-MM-DD)
             */
            case_date: string;
            /** @description Case stage */
            case_stage: string;
            fdl_comments: string | null;
            merchant_decision: ("accept" | "rebuttal") | null;
            /** @description Payment id */
            payment_id: string;
            payment_order_nr: string | null;
        };
        /** @description RFC 9457 problem details */
        Problem: {
            /** @description URI reference identifying the problem type */
            type: string;
            title: string;
            status: number;
            detail: string;
            /** @description Present on 400 only */
            errors?: {
                /** @description JSON path of the offending value, e.g. "shop_codes[2]"; an unknown field's own name; "" for the body itself */
                field: string;
                message: string;
            }[];
        };
        /** Chargeback summary request */
        ChargebackSummaryRequest: {
            /** @description First file date to return (inclusive). */
            file_date_from?: string | null;
            /** @description Last file date to return (inclusive). */
            file_date_to?: string | null;
            /** @description Shop codes, each inside the caller's access list (else 403); the values combine with OR. An empty array is the same as omitting the field. */
            shop_codes?: string[] | null;
            /** @description Merchant identification number (MID), exact match. */
            merchant_id?: string | null;
            /** @description Acquirer reference numbers; the values combine with OR. An empty array is the same as omitting the field. */
            acq_ref_nrs?: string[] | null;
            /** @description Order ids / bill numbers in the merchant system; the values combine with OR. An empty array is the same as omitting the field. */
            payment_order_nrs?: string[] | null;
            /** @description Parent MID in a two-level merchant hierarchy, exact match. */
            parent_merchant_id?: string | null;
            /** @description Network-assigned transaction ids; the values combine with OR. An empty array is the same as omitting the field. */
            transaction_ids?: string[] | null;
            /** @description 0 to 2 distinct dimensions (month, file_date, shop_code, merchant_id, card_type, reason_code, function_code, documents). Default []: one group for the whole selection. Groups are ordered by their key values in this order, ascending; more than 10000 groups answer 400. */
            group_by?: ("month" | "file_date" | "shop_code" | "merchant_id" | "card_type" | "reason_code" | "function_code" | "documents")[] | null;
        };
        ChargebackSummary: {
            /** @description With group_by []: exactly one group with key {}, even when nothing matches. Otherwise the groups that have records, ordered by key */
            groups: components["schemas"]["ChargebackSummaryGroup"][];
            /** @description Records of the selection inside the caller's scope: the search's totalElements for the same filters */
            totalElements: number;
        };
        ChargebackSummaryGroup: {
            /** @description The group's value of each dimension of group_by, and nothing else ({} without group_by) */
            key: {
                /** @description Month of the file date, "YYYY-MM" */
                month?: string;
                /**
                 * Format: date
                 * @description File date, "YYYY-MM-DD"
                 */
                file_date?: string;
                /** @description The shop the records belong to */
                shop_code?: string;
                /** @description Merchant id (MID) */
                merchant_id?: string;
                /** @description Scheme (MC or VISA) */
                card_type?: string;
                /** @description Reason code */
                reason_code?: number;
                /** @description Function code */
                function_code?: number;
                /** @description Extension: "yes" when the issuer sent supporting documents (doc_indicator 1), else "no" */
                documents?: string;
            };
            /** @description Records of the group */
            count: number;
            /** @description Records of the group whose rev_indicator is "R" */
            reversals: number;
            /** @description Sums per currency; amounts of different currencies are never added together */
            amounts: components["schemas"]["ChargebackSummaryAmount"][];
        };
        ChargebackSummaryAmount: {
            /** @description chb_ccy of the records (ISO 4217); one entry per currency, ordered by currency */
            currency: string;
            /**
             * @description Sum of chb_amount over the group's records in this currency that are not reversals. Exact decimal written with exactly two decimals, e.g. 1234.50.
             * @example 1234.5
             */
            chb_amount: number;
            /**
             * @description Sum of chb_amount over the group's reversals (rev_indicator "R") in this currency. Exact decimal written with exactly two decimals, e.g. 1234.50.
             * @example 1234.5
             */
            reversal_amount: number;
        };
        /** Pre-arbitration summary request */
        PreArbitrationSummaryRequest: {
            /** @description First file date to return (inclusive). */
            file_date_from?: string | null;
            /** @description Last file date to return (inclusive). */
            file_date_to?: string | null;
            /** @description Shop codes, each inside the caller's access list (else 403); the values combine with OR. An empty array is the same as omitting the field. */
            shop_codes?: string[] | null;
            /** @description Merchant identification number (MID), exact match. */
            merchant_id?: string | null;
            /** @description Acquirer reference numbers; the values combine with OR. An empty array is the same as omitting the field. */
            acq_ref_nrs?: string[] | null;
            /** @description Order ids / bill numbers in the merchant system; the values combine with OR. An empty array is the same as omitting the field. */
            payment_order_nrs?: string[] | null;
            /** @description Payment ids in the processing system; the values combine with OR. An empty array is the same as omitting the field. */
            payment_ids?: string[] | null;
            /** @description 0 to 2 distinct dimensions (month, file_date, shop_code, merchant_id, case_stage). Default []: one group for the whole selection. Groups are ordered by their key values in this order, ascending; more than 10000 groups answer 400. */
            group_by?: ("month" | "file_date" | "shop_code" | "merchant_id" | "case_stage")[] | null;
        };
        PreArbitrationSummary: {
            /** @description With group_by []: exactly one group with key {}, even when nothing matches. Otherwise the groups that have records, ordered by key */
            groups: components["schemas"]["PreArbitrationSummaryGroup"][];
            /** @description Records of the selection inside the caller's scope: the search's totalElements for the same filters */
            totalElements: number;
        };
        PreArbitrationSummaryGroup: {
            /** @description The group's value of each dimension of group_by, and nothing else ({} without group_by) */
            key: {
                /** @description Month of the file date, "YYYY-MM" */
                month?: string;
                /**
                 * Format: date
                 * @description File date, "YYYY-MM-DD"
                 */
                file_date?: string;
                /** @description The shop the records belong to */
                shop_code?: string;
                /** @description Merchant id (MID) */
                merchant_id?: string;
                /** @description Case stage */
                case_stage?: string;
            };
            /** @description Records of the group */
            count: number;
            /** @description Sums per currency; amounts of different currencies are never added together */
            amounts: components["schemas"]["PreArbitrationSummaryAmount"][];
        };
        PreArbitrationSummaryAmount: {
            /** @description ccy of the records (ISO 4217); one entry per currency, ordered by currency */
            currency: string;
            /**
             * @description Sum of amount over the group's records in this currency. Exact decimal written with exactly two decimals, e.g. 1234.50.
             * @example 1234.5
             */
            amount: number;
        };
        /** Worklist request */
        WorklistRequest: {
            /** @description Shop codes, each inside the caller's access list (else 403); the values combine with OR. An empty array is the same as omitting the field. */
            shop_codes?: string[] | null;
            /** @description Kinds of current item to list. Default (omitted, null or []) both. */
            kinds?: ("chargeback" | "pre_arbitration")[] | null;
            /** @description Statuses on the date `as_of` to list: due (answer-by date on or after as_of), overdue (answer-by date passed, expiry date not), expired (expiry date, the base date plus the scheme limit, passed). Default (omitted, null or []) due and overdue. */
            statuses?: ("due" | "overdue" | "expired")[] | null;
            /** @description The date the statuses are counted on (YYYY-MM-DD). Default the server's current date in UTC; a dashboard passes the user's own date. */
            as_of?: string | null;
            /** @description First answer-by date to list (inclusive). */
            answer_by_from?: string | null;
            /** @description Last answer-by date to list (inclusive). */
            answer_by_to?: string | null;
            /** @description First expiry date to list (inclusive): the base date plus the scheme limit. An extension: with statuses ["expired"] it lists what was missed in a period, such as the last 30 days. */
            expiry_from?: string | null;
            /** @description Last expiry date to list (inclusive). An extension, like expiry_from. */
            expiry_to?: string | null;
            /** @description Page number, from 0. Default 0. A page beyond the last returns an empty content. */
            page?: number | null;
            /** @description Records per page, 10 to 1000. Default 10. Values outside the range are rejected, never clamped. */
            per_page?: number | null;
        };
        WorklistPage: {
            /** @description The page's disputes, each with its current item: answer_by ascending, then chargebacks before cases, then ID ascending */
            content: (components["schemas"]["WorklistChargeback"] | components["schemas"]["WorklistPreArbitration"])[];
            /** @description ceil(totalElements / per_page); 0 when nothing matches */
            totalPages: number;
            /** @description Number of disputes that need an answer and match the request (statuses on as_of included), inside the caller's scope */
            totalElements: number;
        };
        WorklistChargeback: {
            /** @constant */
            kind: "chargeback";
            /**
             * Format: date
             * @description The answer-by date (YYYY-MM-DD): the base date plus min(acquirer window, scheme limit) days
             */
            answer_by: string;
            /**
             * @description The dispute's status on the request's as_of date
             * @enum {string}
             */
            status: "due" | "overdue" | "expired";
            record: components["schemas"]["Chargeback"];
        };
        WorklistPreArbitration: {
            /** @constant */
            kind: "pre_arbitration";
            /**
             * Format: date
             * @description The answer-by date (YYYY-MM-DD): the base date plus min(acquirer window, scheme limit) days
             */
            answer_by: string;
            /**
             * @description The dispute's status on the request's as_of date
             * @enum {string}
             */
            status: "due" | "overdue" | "expired";
            record: components["schemas"]["PreArbitration"];
        };
        /** Overview request */
        OverviewRequest: {
            /** @description Shop codes, each inside the caller's access list (else 403); the values combine with OR. An empty array is the same as omitting the field. */
            shop_codes?: string[] | null;
            /**
             * Format: date
             * @description First file date of the period (inclusive).
             * @example 2026-03-31
             */
            file_date_from: string;
            /**
             * Format: date
             * @description Last file date of the period (inclusive).
             * @example 2026-03-31
             */
            file_date_to: string;
        };
        Overview: {
            /** @description The chosen period */
            period: components["schemas"]["OverviewPeriod"];
            /** @description The period of the same length just before */
            previous: components["schemas"]["OverviewPeriod"];
            chargebacks: components["schemas"]["ChargebackSummary"];
            chargebacks_previous: components["schemas"]["ChargebackSummary"];
            pre_arbitrations: components["schemas"]["PreArbitrationSummary"];
            pre_arbitrations_previous: components["schemas"]["PreArbitrationSummary"];
            by_month_and_scheme: components["schemas"]["ChargebackSummary"];
            by_reason: components["schemas"]["ChargebackSummary"];
            by_function_code: components["schemas"]["ChargebackSummary"];
            by_documents: components["schemas"]["ChargebackSummary"];
            by_shop: components["schemas"]["ChargebackSummary"];
            by_merchant: components["schemas"]["ChargebackSummary"];
            /** @description Mastercard's Excessive Chargeback Program, as counts: per month, each merchant's Mastercard chargebacks against the floors 100 and 300. The program's ratio also needs the merchant's sales counts, which acquirer files do not carry. */
            excessive_chargebacks: components["schemas"]["OverviewExcessiveChargebackMonth"][];
        };
        OverviewPeriod: {
            /** Format: date */
            from: string;
            /** Format: date */
            to: string;
            /** @description Days of the period, both ends included */
            days: number;
        };
        OverviewExcessiveChargebackMonth: {
            /** @description "YYYY-MM"; every month the period touches, the first and last only for their days inside it */
            month: string;
            /** @description Merchants with Mastercard chargebacks (not reversals) in the month */
            merchants: number;
            /** @description The merchant with the most of them (the bytewise first of a tie); null without any */
            top_merchant: string | null;
            /** @description Its Mastercard chargebacks in the month */
            top_count: number;
            /** @description Merchants with at least 100 in the month */
            at_excessive: number;
            /** @description Merchants with at least 300 in the month */
            at_high_excessive: number;
        };
        /** Shop directory */
        ShopDirectory: {
            /** @description One entry per shop code of the caller's access list, in bytewise order of shop_code. */
            shops: components["schemas"]["ShopEntry"][];
        };
        /** Shop directory entry */
        ShopEntry: {
            /** @description A shop code of the caller's access list. */
            shop_code: string;
            /** @description The merchant id of the shop's latest file (either kind) that carries the shop: its last record there. Null when the shop has no records. */
            merchant_id: string | null;
            /** @description The merchant name of that same record (null when it is empty or the shop has no records). */
            merchant_name: string | null;
            /** @description parent_mrch_id of the shop's latest chargeback file that carries the shop (pre-arbitration records have no parent): its last record there. Null without one. */
            parent_merchant_id: string | null;
            /** @description parent_mrch_name of that same chargeback record. */
            parent_merchant_name: string | null;
        };
        /** Shop directory request */
        ShopsRequest: Record<string, never>;
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    searchChargebacks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A JSON object; every field is optional, null counts as omitted, an empty body counts as {}. Unknown fields are refused. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ChargebackSearch"];
            };
        };
        responses: {
            /** @description One page of the selection with exact totals */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChargebackPage"];
                };
            };
            /** @description Invalid JSON, a body that is not an object, or a broken field rule; `errors` names each offending field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Authentication failed: missing or malformed headers, unknown shop, wrong signature or reused nonce (one identical body for all) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description shop_codes names a shop outside the caller's access list, or a cookie-authenticated request came from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A method other than POST */
            405: {
                headers: {
                    /** @description Always POST */
                    Allow?: "POST";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A body over 1048576 bytes (1 MiB) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A content type other than application/json, or a charset other than utf-8 */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description More requests from one credential than the rate limit (RATE_LIMIT_PER_MINUTE, default 6000 per minute) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description An unexpected error; the body never holds internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    searchPreArbitrations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A JSON object; every field is optional, null counts as omitted, an empty body counts as {}. Unknown fields are refused. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["PreArbitrationSearch"];
            };
        };
        responses: {
            /** @description One page of the selection with exact totals */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PreArbitrationPage"];
                };
            };
            /** @description Invalid JSON, a body that is not an object, or a broken field rule; `errors` names each offending field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Authentication failed: missing or malformed headers, unknown shop, wrong signature or reused nonce (one identical body for all) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description shop_codes names a shop outside the caller's access list, or a cookie-authenticated request came from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A method other than POST */
            405: {
                headers: {
                    /** @description Always POST */
                    Allow?: "POST";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A body over 1048576 bytes (1 MiB) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A content type other than application/json, or a charset other than utf-8 */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description More requests from one credential than the rate limit (RATE_LIMIT_PER_MINUTE, default 6000 per minute) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description An unexpected error; the body never holds internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    summarizeChargebacks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A JSON object; every field is optional, null counts as omitted, an empty body counts as {}. Unknown fields are refused. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ChargebackSummaryRequest"];
            };
        };
        responses: {
            /** @description The groups of the selection and its totalElements */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChargebackSummary"];
                };
            };
            /** @description As for the searches, or group_by names an unknown or repeated dimension or more than two (field group_by or group_by[i]), or the selection gives more than 10000 groups (field group_by) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Authentication failed: missing or malformed headers, unknown shop, wrong signature or reused nonce (one identical body for all) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description shop_codes names a shop outside the caller's access list, or a cookie-authenticated request came from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A method other than POST */
            405: {
                headers: {
                    /** @description Always POST */
                    Allow?: "POST";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A body over 1048576 bytes (1 MiB) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A content type other than application/json, or a charset other than utf-8 */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description More requests from one credential than the rate limit (RATE_LIMIT_PER_MINUTE, default 6000 per minute) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description An unexpected error; the body never holds internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    summarizePreArbitrations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A JSON object; every field is optional, null counts as omitted, an empty body counts as {}. Unknown fields are refused. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["PreArbitrationSummaryRequest"];
            };
        };
        responses: {
            /** @description The groups of the selection and its totalElements */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PreArbitrationSummary"];
                };
            };
            /** @description As for the searches, or group_by names an unknown or repeated dimension or more than two (field group_by or group_by[i]), or the selection gives more than 10000 groups (field group_by) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Authentication failed: missing or malformed headers, unknown shop, wrong signature or reused nonce (one identical body for all) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description shop_codes names a shop outside the caller's access list, or a cookie-authenticated request came from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A method other than POST */
            405: {
                headers: {
                    /** @description Always POST */
                    Allow?: "POST";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A body over 1048576 bytes (1 MiB) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A content type other than application/json, or a charset other than utf-8 */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description More requests from one credential than the rate limit (RATE_LIMIT_PER_MINUTE, default 6000 per minute) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description An unexpected error; the body never holds internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listWorklist: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A JSON object; every field is optional, null counts as omitted, an empty body counts as {}. Unknown fields are refused. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["WorklistRequest"];
            };
        };
        responses: {
            /** @description One page of the selection with exact totals */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorklistPage"];
                };
            };
            /** @description Invalid JSON, a body that is not an object, or a broken field rule; `errors` names each offending field */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Authentication failed: missing or malformed headers, unknown shop, wrong signature or reused nonce (one identical body for all) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description shop_codes names a shop outside the caller's access list, or a cookie-authenticated request came from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A method other than POST */
            405: {
                headers: {
                    /** @description Always POST */
                    Allow?: "POST";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A body over 1048576 bytes (1 MiB) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A content type other than application/json, or a charset other than utf-8 */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description More requests from one credential than the rate limit (RATE_LIMIT_PER_MINUTE, default 6000 per minute) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description An unexpected error; the body never holds internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getOverview: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description A JSON object with the period's two dates; unknown fields are refused. */
        requestBody: {
            content: {
                "application/json": components["schemas"]["OverviewRequest"];
            };
        };
        responses: {
            /** @description The period, the previous period, the summaries and the Mastercard counts */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Overview"];
                };
            };
            /** @description As for the searches (both dates are required), or the previous period would begin before 0001-01-01, or a part gives more than 10000 groups (field shop_codes) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Authentication failed: missing or malformed headers, unknown shop, wrong signature or reused nonce (one identical body for all) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description shop_codes names a shop outside the caller's access list, or a cookie-authenticated request came from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A method other than POST */
            405: {
                headers: {
                    /** @description Always POST */
                    Allow?: "POST";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A body over 1048576 bytes (1 MiB) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A content type other than application/json, or a charset other than utf-8 */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description More requests from one credential than the rate limit (RATE_LIMIT_PER_MINUTE, default 6000 per minute) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description An unexpected error; the body never holds internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listShops: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description An empty JSON object (or an empty body); any field is refused. */
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ShopsRequest"];
            };
        };
        responses: {
            /** @description The caller's shops with their merchants */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ShopDirectory"];
                };
            };
            /** @description Invalid JSON, a body that is not an object, or any field (each named in errors) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Authentication failed: missing or malformed headers, unknown shop, wrong signature or reused nonce (one identical body for all) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A cookie-authenticated request came from another origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A method other than POST */
            405: {
                headers: {
                    /** @description Always POST */
                    Allow?: "POST";
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A body over 1048576 bytes (1 MiB) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A content type other than application/json, or a charset other than utf-8 */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description More requests from one credential than the rate limit (RATE_LIMIT_PER_MINUTE, default 6000 per minute) */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description An unexpected error; the body never holds internals */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The database is unreachable */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
