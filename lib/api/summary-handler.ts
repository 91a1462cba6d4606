import "server-only";
import { summarize } from "@/lib/data/queries/summary";
import type { RecordKind } from "@/lib/domain/fields";
import { MAX_GROUPS, parseSummaryRequest } from "@/lib/schemas/summary";
import { ApiError } from "./problem";
import { jsonAnswer, postRoute } from "./route";

/** Both summary endpoints (docs/api.md, "Summaries"): the searches' pipeline, one grouped query. */
export function summaryRoute(kind: RecordKind) {
  return postRoute({
    parse: (body) => parseSummaryRequest(kind, body),
    shopCodes: (request) => request.shop_codes,
    async answer(request, caller) {
      const result = await summarize(kind, request, caller.access);
      if (!result.ok) {
        throw new ApiError(400, `the selection gives more than ${MAX_GROUPS} groups; narrow the filters or group by fewer dimensions`, {
          errors: [{ field: "group_by", message: `gives more than ${MAX_GROUPS} groups for this selection` }],
        });
      }
      return jsonAnswer(result.json);
    },
  });
}
