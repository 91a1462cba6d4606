import { getDb } from "@/lib/data/db";

export const dynamic = "force-dynamic";

/** Readiness: answers 200 once the database is open and migrated, 503 while it is unreachable. */
export async function GET() {
  try {
    const { db } = await getDb();
    await db.selectFrom("imported_files").select("id").limit(1).execute();
    return Response.json({ status: "ok" });
  } catch {
    return Response.json({ status: "unavailable" }, { status: 503, headers: { "Retry-After": "5" } });
  }
}
