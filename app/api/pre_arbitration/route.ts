import { searchRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const { POST, GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = searchRoute("pre_arbitration");
