export const dynamic = "force-dynamic";

/** Liveness: the process answers HTTP. Never touches the database, so an outage there never gets the process restarted. */
export function GET() {
  return Response.json({ status: "alive" }, { headers: { "Cache-Control": "no-store" } });
}
