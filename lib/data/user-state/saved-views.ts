import "server-only";
import { type Kysely, type Selectable, type Updateable } from "kysely";
import { type CreateViewRequest, type SavedView, type UpdateViewRequest, VIEW_LIMITS, type ViewPage, viewNameKey } from "@/lib/schemas/saved-views";
import { getDb } from "../connection/db";
import type { Database, SavedViewTable } from "../connection/schema";
import { changingUser } from "./user-write";

export type { SavedView };

/**
 * A dashboard user's saved views (docs/api.md, "Saved views"; migration 014), in the main
 * database. Every function takes the signed-in user's id and touches only that user's views: a
 * view of another user is "not found", exactly like one that does not exist.
 */

/** Why a change was refused; the routes answer 409 (name_taken, limit_reached) or 404 (not_found). */
export type SavedViewError = { reason: "name_taken"; name: string } | { reason: "limit_reached"; limit: number } | { reason: "not_found" };

export type SavedViewResult = { ok: true; view: SavedView } | { ok: false; error: SavedViewError };

const notFound: SavedViewResult = { ok: false, error: { reason: "not_found" } };
const nameTaken = (name: string): SavedViewResult => ({ ok: false, error: { reason: "name_taken", name } });

function toView(row: Selectable<SavedViewTable>): SavedView {
  return {
    id: Number(row.id),
    name: row.name,
    page: row.page as ViewPage,
    query: row.query,
    columns: row.columns === null ? null : (JSON.parse(row.columns) as Record<string, boolean>),
    is_default: Number(row.is_default) === 1,
    created_at: new Date(Number(row.created_at)).toISOString(),
    updated_at: new Date(Number(row.updated_at)).toISOString(),
  };
}

/** Both drivers' codes for a unique constraint violation. */
function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE";
}

/** A change of one user's views, serialised with that user's other changes (user-write.ts). */
async function changing<T>(userId: number, change: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return changingUser(await getDb(), userId, change);
}

/** The user's views, by page, then by name regardless of letter case. */
export async function listSavedViews(userId: number): Promise<SavedView[]> {
  const { db } = await getDb();
  const rows = await db.selectFrom("saved_views").selectAll().where("user_id", "=", userId).orderBy("page").orderBy("name_key").orderBy("id").execute();
  return rows.map(toView);
}

/** The signed-in user's views for the dashboard's layout: the same list as GET /api/views. */
export const savedViewsOf = listSavedViews;

/** A new view (not the page's default), unless the user has reached the limit or has a view of that name. */
export async function createSavedView(userId: number, request: CreateViewRequest, now = Date.now()): Promise<SavedViewResult> {
  const nameKey = viewNameKey(request.name);
  try {
    return await changing(userId, async (trx) => {
      const counted = await trx.selectFrom("saved_views").select((eb) => eb.fn.countAll().as("n")).where("user_id", "=", userId).executeTakeFirstOrThrow();
      if (Number(counted.n) >= VIEW_LIMITS.perUser) return { ok: false, error: { reason: "limit_reached", limit: VIEW_LIMITS.perUser } };
      const same = await trx.selectFrom("saved_views").select("id").where("user_id", "=", userId).where("name_key", "=", nameKey).executeTakeFirst();
      if (same) return nameTaken(request.name);
      const row = await trx
        .insertInto("saved_views")
        .values({
          user_id: userId,
          page: request.page,
          name: request.name,
          name_key: nameKey,
          query: request.query,
          columns: request.columns === null ? null : JSON.stringify(request.columns),
          is_default: 0,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ok: true, view: toView(row) };
    });
  } catch (err) {
    if (isUniqueViolation(err)) return nameTaken(request.name);
    throw err;
  }
}

/**
 * Renames a view and/or marks it as its page's default (which unmarks the user's other default
 * of that page, in the same transaction) or unmarks it.
 */
export async function updateSavedView(userId: number, id: number, request: UpdateViewRequest, now = Date.now()): Promise<SavedViewResult> {
  try {
    return await changing(userId, async (trx) => {
      const view = await trx.selectFrom("saved_views").select(["id", "page"]).where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
      if (!view) return notFound;
      const changes: Updateable<SavedViewTable> = { updated_at: now };
      if (request.name !== undefined) {
        const nameKey = viewNameKey(request.name);
        const other = await trx.selectFrom("saved_views").select("id").where("user_id", "=", userId).where("name_key", "=", nameKey).where("id", "<>", id).executeTakeFirst();
        if (other) return nameTaken(request.name);
        Object.assign(changes, { name: request.name, name_key: nameKey });
      }
      if (request.is_default === true) {
        await trx
          .updateTable("saved_views")
          .set({ is_default: 0, updated_at: now })
          .where("user_id", "=", userId)
          .where("page", "=", view.page)
          .where("is_default", "=", 1)
          .where("id", "<>", id)
          .execute();
        changes.is_default = 1;
      } else if (request.is_default === false) {
        changes.is_default = 0;
      }
      const row = await trx.updateTable("saved_views").set(changes).where("id", "=", id).where("user_id", "=", userId).returningAll().executeTakeFirstOrThrow();
      return { ok: true, view: toView(row) };
    });
  } catch (err) {
    if (isUniqueViolation(err) && request.name !== undefined) return nameTaken(request.name);
    throw err;
  }
}

/** Deletes a view of the user; false when the user has no view of that id. */
export async function removeSavedView(userId: number, id: number): Promise<boolean> {
  return changing(userId, async (trx) => {
    const result = await trx.deleteFrom("saved_views").where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}
