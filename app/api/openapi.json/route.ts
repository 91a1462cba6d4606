import { openApiDocument } from "@/lib/openapi/document";

/** The OpenAPI 3.1 document, served without authentication (docs/api.md, "Endpoints"). */
export function GET() {
  return Response.json(openApiDocument(), { headers: { "Cache-Control": "public, max-age=300" } });
}
