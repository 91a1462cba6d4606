import { jsonAnswer, postRoute } from "@/lib/api/route";
import { envelopeJson, worklistContentJson } from "@/lib/api/serialize";
import { worklistPage } from "@/lib/data/queries/worklist";
import { deadlineConfigFromEnv } from "@/lib/domain/deadlines";
import { parseWorklistRequest } from "@/lib/schemas/worklist";

export const dynamic = "force-dynamic";

/** docs/api.md, "Worklist": the disputes that need the merchant's answer, nearest answer-by date first. */
export const { POST, GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = postRoute({
  parse: parseWorklistRequest,
  shopCodes: (request) => request.shop_codes,
  async answer(request, caller) {
    // The same windows as the dashboard's drawer (checked at start by lib/config-check.ts).
    const result = await worklistPage(request, caller.access, deadlineConfigFromEnv());
    return jsonAnswer(envelopeJson(worklistContentJson(result.items), result.totalPages, result.totalElements));
  },
});
