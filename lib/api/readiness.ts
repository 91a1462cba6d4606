import { getDb } from "@/lib/data/connection/db";
import { startedReplicaMonitor } from "@/lib/data/connection/replicas";
import { isDraining } from "@/lib/server-state";

/**
 * Readiness: 200 once the database is open, migrated and answering; 503 while it is unreachable,
 * and from the moment a shutdown begins (SIGTERM), so that a load balancer sends no new work here.
 * Replicas never change the status (docs/replicas.md, "Operations"): their reads go elsewhere while
 * they are away. The body names each one's state for a person looking.
 */
export async function readiness(): Promise<Response> {
  const headers = { "Cache-Control": "no-store" };
  if (isDraining()) return Response.json({ status: "draining" }, { status: 503, headers: { ...headers, "Retry-After": "5" } });
  try {
    const { db } = await getDb();
    await db.selectFrom("imported_files").select("id").limit(1).execute();
    const monitor = await startedReplicaMonitor();
    // The lag up to the next tenth of a second: a replica left out for lagging more than the limit
    // never shows a lag equal to it (2.04 s is "lagging" at a limit of 2, and shows 2.1, not 2).
    const replicas = monitor?.states().map((r) => ({ replica: r.name, state: r.health, lag_seconds: r.lagSeconds === null ? null : Math.ceil(r.lagSeconds * 10) / 10 }));
    return Response.json({ status: "ok", ...(replicas ? { replicas } : {}) }, { headers });
  } catch {
    return Response.json({ status: "unavailable" }, { status: 503, headers: { ...headers, "Retry-After": "5" } });
  }
}
