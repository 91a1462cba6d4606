import { readiness } from "@/lib/api/readiness";

export const dynamic = "force-dynamic";

export const GET = readiness;
