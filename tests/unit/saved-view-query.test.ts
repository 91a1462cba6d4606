import { describe, expect, it } from "vitest";
import { cleanViewQuery, viewPageOf, viewQueryOf } from "@/lib/url-state/saved-views";
import { VIEW_PAGES } from "@/lib/schemas/saved-views";

describe("saved view addresses", () => {
  it("keeps the view, not the moment: no open record, no page number", () => {
    expect(viewQueryOf("?range=last-month&page=3&open=cb%3A1&sort=ID")).toBe("?range=last-month&sort=ID");
    expect(viewQueryOf("?page=2")).toBe("");
    expect(viewQueryOf("")).toBe("");
  });

  it("drops what this version does not know, and names it", () => {
    expect(cleanViewQuery("/chargebacks", "?range=last-month&acquirer_region=EU&size=7&sort=ID")).toEqual({ query: "?range=last-month&sort=ID", dropped: ["acquirer_region", "size"] });
    // A filter of one grid is unknown to the other.
    expect(cleanViewQuery("/pre-arbitration", "?parent=P1&shops=A,B")).toEqual({ query: "?shops=A%2CB", dropped: ["parent"] });
    expect(cleanViewQuery("/overview", "?range=this-quarter&shops=A")).toEqual({ query: "?range=this-quarter&shops=A", dropped: [] });
    expect(cleanViewQuery("/worklist", "?__proto__=1&constructor=2")).toEqual({ query: "", dropped: ["__proto__", "constructor"] });
    expect(cleanViewQuery("/chargebacks", "")).toEqual({ query: "", dropped: [] });
  });

  it("knows every page a view can belong to", () => {
    for (const page of VIEW_PAGES) expect(viewPageOf(page)).toBe(page);
    expect(viewPageOf("/login")).toBeUndefined();
    expect(viewPageOf("/docs")).toBeUndefined();
  });
});
