import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupState, narrow, type ShopEntry, shopTree, toggleOption } from "@/components/shared/shop-options";

const entry = (shop: string, merchant: [string, string] | null, parent: [string, string] | null = null): ShopEntry => ({
  shop_code: shop,
  merchant_id: merchant?.[0] ?? null,
  merchant_name: merchant?.[1] ?? null,
  parent_merchant_id: parent?.[0] ?? null,
  parent_merchant_name: parent?.[1] ?? null,
});

const DIRECTORY = [
  entry("web-2", ["M2", "Acme Books"], ["P1", "Nordic Group"]),
  entry("web-1", ["M1", "Zeta Sport"], ["P1", "Nordic Group"]),
  entry("app-1", ["M1", "Zeta Sport"], ["P1", "Nordic Group"]),
  entry("solo", ["M3", "Solo Cafe"]),
  entry("new-shop", null),
];

const names = (search: string, limit = 100) => narrow(shopTree(DIRECTORY), search, limit).options.map((o) => (o.type === "shop" ? o.code : `All shops of ${o.title}`));

describe("shop picker options", () => {
  it("groups by parent, then merchant (by name), with each group's own option first; shops without records last", () => {
    expect(names("")).toEqual([
      "All shops of Nordic Group (P1)",
      "All shops of Acme Books (M2)",
      "web-2",
      "All shops of Zeta Sport (M1)",
      "app-1",
      "web-1",
      "All shops of Solo Cafe (M3)",
      "solo",
      "new-shop",
    ]);
    const sections = narrow(shopTree(DIRECTORY), "", 100).sections;
    expect(sections.map((s) => [s.heading, s.nested])).toEqual([
      ["Nordic Group (P1)", false],
      ["Acme Books (M2)", true],
      ["Zeta Sport (M1)", true],
      ["Solo Cafe (M3)", false],
      ["Shops without records yet", false],
    ]);
  });

  it("matches code, merchant id or name, parent id or name, case-insensitively and anywhere", () => {
    expect(names("WEB-")).toEqual(["All shops of Nordic Group (P1)", "All shops of Acme Books (M2)", "web-2", "All shops of Zeta Sport (M1)", "web-1"]);
    expect(names("eta sp")).toEqual(["All shops of Nordic Group (P1)", "All shops of Zeta Sport (M1)", "app-1", "web-1"]);
    expect(names("m3")).toEqual(["All shops of Solo Cafe (M3)", "solo"]);
    expect(names("nordic")).toHaveLength(6);
    expect(names("p1")).toHaveLength(6);
    expect(names("nothing")).toEqual([]);
  });

  it("a group's option stands for all of its shops, also those the search left out", () => {
    const { options } = narrow(shopTree(DIRECTORY), "web-1", 100);
    const merchant = options.find((o) => o.type === "group" && o.level === "merchant");
    expect(merchant && merchant.type === "group" ? merchant.shops : []).toEqual(["app-1", "web-1"]);
    const parent = options.find((o) => o.type === "group" && o.level === "parent");
    expect(parent && parent.type === "group" ? parent.shops : []).toEqual(["app-1", "web-1", "web-2"]);
  });

  it("lists at most the limit, and says how many it left out", () => {
    const many = Array.from({ length: 2000 }, (_, i) => entry(`S${String(i).padStart(4, "0")}`, [`M${Math.floor(i / 5)}`, `Merchant ${Math.floor(i / 5)}`], [`P${Math.floor(i / 50)}`, `Parent ${Math.floor(i / 50)}`]));
    const result = narrow(shopTree(many), "", 200);
    expect(result.options.filter((o) => o.type === "shop")).toHaveLength(200);
    expect(result.matches).toBe(2000);
    expect(result.hidden).toBe(1800);
    expect(narrow(shopTree(many), "s19", 200).matches).toBe(100);
  });

  it("toggling a group chooses all of its shops, or none when all were chosen; order is kept", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e")), fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e"), { minLength: 1 }), (chosen, shops) => {
        const next = toggleOption(chosen, { type: "group", level: "merchant", key: "m", title: "M", shops });
        const all = shops.every((s) => chosen.includes(s));
        if (all) expect(next).toEqual(chosen.filter((s) => !shops.includes(s)));
        else {
          expect(next.slice(0, chosen.length)).toEqual(chosen);
          expect(new Set(next)).toEqual(new Set([...chosen, ...shops]));
          expect(next).toHaveLength(new Set(next).size);
        }
        expect(groupState(new Set(next), shops)).toBe(all ? "none" : "all");
      }),
    );
    expect(groupState(new Set(["a"]), ["a", "b"])).toBe("some");
  });
});
