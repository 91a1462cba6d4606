/**
 * The two database backends. A module of its own, imported by every layer that needs the name
 * (migrations, queries, the JSON writer, webhooks), so that none of them imports another for it.
 */
export type Dialect = "sqlite" | "postgres";
