import { jsonAnswer, postRoute } from "@/lib/api/route";
import { shopDirectory } from "@/lib/data/aggregates/shop-directory";
import { parseShopsRequest } from "@/lib/schemas/shops";

export const dynamic = "force-dynamic";

/** An extension (docs/api.md, "Shop directory"): the merchant and parent merchant of every shop of the caller's access list. */
export const { POST, GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = postRoute({
  parse: parseShopsRequest,
  shopCodes: () => undefined,
  async answer(_request, caller) {
    return jsonAnswer(JSON.stringify({ shops: await shopDirectory(caller.access) }));
  },
});
