import { openApiDocument } from "@/lib/api/openapi";

/** The OpenAPI 3.1 document, served without authentication (CONTRACT 1). */
export function GET() {
  return Response.json(openApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } });
}
