import fs from "node:fs";
import path from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/lib/openapi/document";
import { CLIENT_TYPES_FILE, clientTypes } from "../../scripts/openapi-types";

/**
 * The document at /api/openapi.json (docs/api.md, "Endpoints") is one client generators take as it
 * is: it lints clean under Redocly's recommended rules, every operation has a stable operationId,
 * and the client types kept in lib/openapi/client-types.d.ts are what it generates today.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");

describe("the OpenAPI document", () => {
  it("lints clean under Redocly's recommended rules: no error, no warning", async () => {
    // No rule turned off: the recommended set as Redocly ships it.
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(openApiDocument()), absoluteRef: "openapi.json", config });
    const listed = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location.map((l) => l.pointer).join(", ")})`);
    expect(listed, listed.join("\n")).toEqual([]);
  });

  it("names every operation with a stable operationId, the name a generated client calls it by", () => {
    const paths = openApiDocument().paths as Record<string, Record<string, { operationId?: string }>>;
    const ids = Object.fromEntries(Object.entries(paths).flatMap(([route, item]) => Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${route}`, op.operationId])));
    expect(ids).toEqual({
      "POST /api/chargeback": "searchChargebacks",
      "POST /api/pre_arbitration": "searchPreArbitrations",
      "POST /api/chargeback/summary": "summarizeChargebacks",
      "POST /api/pre_arbitration/summary": "summarizePreArbitrations",
      "POST /api/worklist": "listWorklist",
      "POST /api/overview": "getOverview",
      "POST /api/shops": "listShops",
    });
  });

  it("generates exactly the client types kept in lib/openapi/client-types.d.ts (else run npm run openapi:types)", async () => {
    const kept = fs.readFileSync(path.join(ROOT, CLIENT_TYPES_FILE), "utf8");
    expect(await clientTypes(), `${CLIENT_TYPES_FILE} is stale: run npm run openapi:types and commit it`).toBe(kept);
  });
});
