import { describe, expect, it } from "vitest";
import { NEXT_STATIC, routeMatcher, UNMATCHED } from "@/server/routes";

/** The metrics' route label (docs/api.md, "Metrics"): a pattern of the build, never a path. */
describe("route patterns", () => {
  const routeOf = routeMatcher(["/", "/api/chargeback", "/api/export/[kind]", "/api/export/worklist", "/api/views/[id]", "/api/views/[id]/delete", "/chargebacks", "/favicon.svg"]);

  it("names static routes, dynamic segments in brackets, static before dynamic", () => {
    expect(routeOf("/api/chargeback")).toBe("/api/chargeback");
    expect(routeOf("/api/chargeback/?x=1")).toBe("/api/chargeback");
    expect(routeOf("/api/export/worklist?shop=1")).toBe("/api/export/worklist");
    expect(routeOf("/api/export/chargeback?from=2026-01-01")).toBe("/api/export/[kind]");
    expect(routeOf("/api/views/42/delete")).toBe("/api/views/[id]/delete");
    expect(routeOf("/api/views/42")).toBe("/api/views/[id]");
    expect(routeOf("/")).toBe("/");
    expect(routeOf("/favicon.svg")).toBe("/favicon.svg");
    expect(routeOf("/_next/static/chunks/abc123.js")).toBe(NEXT_STATIC);
  });

  it("calls everything else unmatched", () => {
    for (const path of ["/api/chargeback/123", "/api/views/1/2/3", "/nope", "/api/export", "", "*", "/_next/image?url=x"]) expect(routeOf(path), path).toBe(UNMATCHED);
  });
});
