import { ApiError } from "@/lib/api/problem";
import { jsonAnswer, postRoute } from "@/lib/api/route";
import { overview } from "@/lib/data/queries/overview";
import { MAX_GROUPS } from "@/lib/schemas/summary";
import { parseOverviewRequest } from "@/lib/schemas/overview";

export const dynamic = "force-dynamic";

/** An extension: the overview page's figures in one answer (lib/schemas/overview.ts). */
export const { POST, GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = postRoute({
  parse: parseOverviewRequest,
  shopCodes: (request) => request.shop_codes,
  async answer(request, caller) {
    const result = await overview(request, caller.access);
    if (!result.ok) {
      throw new ApiError(400, `${result.part} gives more than ${MAX_GROUPS} groups for this selection; choose fewer shops or a shorter period`, {
        errors: [{ field: "shop_codes", message: `${result.part} gives more than ${MAX_GROUPS} groups` }],
      });
    }
    return jsonAnswer(result.json);
  },
});
