"use client";

import { createContext, useContext, useMemo } from "react";
import type { ShopEntry } from "./shop-options";

const ShopDirectoryContext = createContext<readonly ShopEntry[] | null>(null);

/**
 * The signed-in user's shops with their merchants and parents (docs/api.md, "Shop directory"),
 * read by the dashboard's layout once and shared by every shop picker of the session.
 */
export function ShopDirectoryProvider({ shops, children }: { shops: readonly ShopEntry[]; children: React.ReactNode }) {
  return <ShopDirectoryContext.Provider value={shops}>{children}</ShopDirectoryContext.Provider>;
}

/**
 * The directory entries of `access` (the shops a picker may offer), in its order; a shop the
 * directory does not know (no records yet, or no provider) is offered by its code alone.
 */
export function useShopDirectory(access: readonly string[]): ShopEntry[] {
  const directory = useContext(ShopDirectoryContext);
  return useMemo(() => {
    const known = new Map((directory ?? []).map((e) => [e.shop_code, e]));
    return access.map(
      (code) => known.get(code) ?? { shop_code: code, merchant_id: null, merchant_name: null, parent_merchant_id: null, parent_merchant_name: null },
    );
  }, [directory, access]);
}
