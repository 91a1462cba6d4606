import { getDb } from "@/lib/data/db";
import { isDraining } from "@/lib/server-state";

/**
 * Readiness: 200 once the database is open, migrated and answering; 503 while it is unreachable,
 * and from the moment a shutdown begins (SIGTERM), so that a load balancer sends no new work here.
 */
export async function readiness(): Promise<Response> {
  const headers = { "Cache-Control": "no-store" };
  if (isDraining()) return Response.json({ status: "draining" }, { status: 503, headers: { ...headers, "Retry-After": "5" } });
  try {
    const { db } = await getDb();
    await db.selectFrom("imported_files").select("id").limit(1).execute();
    return Response.json({ status: "ok" }, { headers });
  } catch {
    return Response.json({ status: "unavailable" }, { status: 503, headers: { ...headers, "Retry-After": "5" } });
  }
}
