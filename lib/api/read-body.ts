import { LIMITS } from "@/lib/schemas/search";
import { ApiError } from "./problem";

const MAX_BODY_BYTES = LIMITS.bodyBytesMax;

/** 415 unless the body is declared as JSON in UTF-8 (a charset parameter is optional). */
export function checkContentType(header: string | null): void {
  const [type, ...params] = (header ?? "").split(";").map((p) => p.trim());
  if (type.toLowerCase() !== "application/json") {
    throw new ApiError(415, "the request body must be sent as Content-Type: application/json");
  }
  for (const param of params) {
    const [name, raw = ""] = param.split("=").map((p) => p.trim());
    if (name.toLowerCase() === "charset" && raw.replace(/^"|"$/g, "").toLowerCase() !== "utf-8") {
      throw new ApiError(415, "the only charset accepted is utf-8");
    }
  }
}

/**
 * Reads at most 1 MiB, counting bytes as they arrive: a larger body is refused without being
 * buffered whole, whatever Content-Length claims.
 */
export async function readBodyText(request: Request): Promise<string> {
  const tooLarge = () => new ApiError(413, `the request body must not exceed ${MAX_BODY_BYTES} bytes`);
  const declared = request.headers.get("content-length");
  if (declared && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8").decode(Buffer.concat(chunks));
}

/** An empty body counts as {}; anything else must be JSON (validity of its shape comes later). */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "the request body is not valid JSON", { errors: [{ field: "", message: "is not valid JSON" }] });
  }
}
