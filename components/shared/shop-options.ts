/**
 * The shop picker's options (components/shared/shop-picker.tsx), as plain data: the user's shops
 * grouped by parent merchant, then merchant, with each group's own "All shops of ..." option, and
 * the search that narrows them. Pure, so the grouping and the matching are tested without a page.
 */

import type { ShopEntry } from "@/lib/schemas/shops";

export type { ShopEntry };

export interface GroupOption {
  type: "group";
  level: "parent" | "merchant";
  key: string;
  /** "NORDIC HOME RIGA LV (MID0000001)", or the id alone when no name is known */
  title: string;
  /** every shop of the group, whatever the search matched */
  shops: readonly string[];
}

export interface ShopOption {
  type: "shop";
  key: string;
  code: string;
}

export type PickerOption = GroupOption | ShopOption;

/** A heading and the options under it: a parent's own option, or a merchant's option and its shops. */
export interface OptionSection {
  key: string;
  heading: string;
  /** indented under its parent */
  nested: boolean;
  options: PickerOption[];
}

interface MerchantNode {
  option: GroupOption | null;
  heading: string;
  shops: { code: string; haystack: string }[];
}

interface ParentNode {
  option: GroupOption | null;
  merchants: MerchantNode[];
}

export interface ShopTree {
  parents: ParentNode[];
  size: number;
}

const titleOf = (name: string | null, id: string) => (name ? `${name} (${id})` : id);
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The directory as parents > merchants > shops, each level sorted by name. Shops without a parent
 * sit under merchants at the top level; shops without records (no merchant yet) come last.
 */
export function shopTree(entries: readonly ShopEntry[]): ShopTree {
  const parents = new Map<string, { id: string | null; name: string | null; merchants: Map<string, { id: string | null; name: string | null; shops: ShopEntry[] }> }>();
  for (const e of entries) {
    const parentKey = e.parent_merchant_id ?? "";
    let parent = parents.get(parentKey);
    if (!parent) parents.set(parentKey, (parent = { id: e.parent_merchant_id, name: e.parent_merchant_name, merchants: new Map() }));
    const merchantKey = e.merchant_id ?? "";
    let merchant = parent.merchants.get(merchantKey);
    if (!merchant) parent.merchants.set(merchantKey, (merchant = { id: e.merchant_id, name: e.merchant_name, shops: [] }));
    merchant.shops.push(e);
  }
  const sortKey = (id: string | null, name: string | null) => (id === null ? "\uffff" : `${(name ?? id).toLowerCase()}\u0000${id}`);
  const out: ParentNode[] = [...parents.values()]
    .sort((a, b) => byText(a.id === null ? "\uffff\uffff" : sortKey(a.id, a.name), b.id === null ? "\uffff\uffff" : sortKey(b.id, b.name)))
    .map((parent) => {
      const merchants = [...parent.merchants.values()].sort((a, b) => byText(sortKey(a.id, a.name), sortKey(b.id, b.name)));
      const parentTitle = parent.id === null ? null : titleOf(parent.name, parent.id);
      return {
        option:
          parentTitle === null
            ? null
            : { type: "group", level: "parent", key: `p:${parent.id}`, title: parentTitle, shops: merchants.flatMap((m) => m.shops.map((s) => s.shop_code)).sort(byText) },
        merchants: merchants.map((m) => {
          const shops = [...m.shops].sort((a, b) => byText(a.shop_code, b.shop_code));
          const title = m.id === null ? null : titleOf(m.name, m.id);
          return {
            option: title === null ? null : { type: "group", level: "merchant", key: `m:${parent.id ?? ""}:${m.id}`, title, shops: shops.map((s) => s.shop_code) },
            heading: title ?? "Shops without records yet",
            shops: shops.map((s) => ({
              code: s.shop_code,
              haystack: [s.shop_code, s.merchant_id, s.merchant_name, s.parent_merchant_id, s.parent_merchant_name].filter(Boolean).join("\n").toLowerCase(),
            })),
          } satisfies MerchantNode;
        }),
      } satisfies ParentNode;
    });
  return { parents: out, size: entries.length };
}

export interface Narrowed {
  sections: OptionSection[];
  /** the options in the order shown: what arrow keys walk through */
  options: PickerOption[];
  /** shops that match the search */
  matches: number;
  /** matching shops left out because the list shows at most `limit` shops */
  hidden: number;
}

/**
 * The sections for a search: a shop matches when its code, merchant id or name, or parent id or
 * name holds the text (case-insensitive, anywhere); a group is shown when one of its shops
 * matches, and its option still stands for all of its shops. At most `limit` shops are listed.
 */
export function narrow(tree: ShopTree, search: string, limit: number): Narrowed {
  const q = search.trim().toLowerCase();
  const sections: OptionSection[] = [];
  const options: PickerOption[] = [];
  let matches = 0;
  let listed = 0;
  for (const parent of tree.parents) {
    let parentShown = false;
    for (const merchant of parent.merchants) {
      const hits = q ? merchant.shops.filter((s) => s.haystack.includes(q)) : merchant.shops;
      if (hits.length === 0) continue;
      matches += hits.length;
      const room = Math.max(0, limit - listed);
      if (room === 0) continue;
      if (!parentShown && parent.option) {
        parentShown = true;
        sections.push({ key: parent.option.key, heading: parent.option.title, nested: false, options: [parent.option] });
        options.push(parent.option);
      }
      const shown = hits.slice(0, room);
      listed += shown.length;
      const section: OptionSection = {
        key: merchant.option?.key ?? `none:${sections.length}`,
        heading: merchant.heading,
        nested: parent.option !== null,
        options: [...(merchant.option ? [merchant.option] : []), ...shown.map((s): ShopOption => ({ type: "shop", key: `s:${s.code}`, code: s.code }))],
      };
      sections.push(section);
      options.push(...section.options);
    }
  }
  return { sections, options, matches, hidden: matches - listed };
}

/** A group's option toggles its shops: all of them chosen when any is missing, none when all are. */
export function toggleOption(chosen: readonly string[], option: PickerOption): string[] {
  const shops = option.type === "shop" ? [option.code] : option.shops;
  const set = new Set(chosen);
  const all = shops.every((s) => set.has(s));
  if (all) {
    const drop = new Set(shops);
    return chosen.filter((s) => !drop.has(s));
  }
  return [...chosen, ...shops.filter((s) => !set.has(s))];
}

/** How much of a group is chosen: "all", "some" or "none". */
export function groupState(chosen: ReadonlySet<string>, shops: readonly string[]): "all" | "some" | "none" {
  let n = 0;
  for (const s of shops) if (chosen.has(s)) n++;
  return n === 0 ? "none" : n === shops.length ? "all" : "some";
}
