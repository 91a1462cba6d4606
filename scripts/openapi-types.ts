/**
 * The TypeScript types a client generator (openapi-typescript) makes of the API document
 * (lib/openapi/document.ts), kept in lib/openapi/client-types.d.ts for typed clients such as openapi-fetch.
 * tests/unit/openapi-document.test.ts regenerates them and fails when the kept file differs, so a
 * change to the document comes with its types:
 *
 *   npm run openapi:types
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { openApiDocument } from "@/lib/openapi/document";

export const CLIENT_TYPES_FILE = "lib/openapi/client-types.d.ts";

const HEADER = "// Generated from lib/openapi/document.ts by `npm run openapi:types` (openapi-typescript): do not edit.\n\n";

/** The types of `document` (by default the one the server serves at /api/openapi.json), as the kept file holds them. */
export async function clientTypes(document: object = openApiDocument()): Promise<string> {
  return HEADER + astToString(await openapiTS(document as OpenAPI3));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const file = path.resolve(import.meta.dirname, "..", CLIENT_TYPES_FILE);
  fs.writeFileSync(file, await clientTypes());
  console.log(`wrote ${CLIENT_TYPES_FILE}`);
}
