import { readiness } from "@/lib/api/readiness";

export const dynamic = "force-dynamic";

/** The readiness answer under its first name (kept for existing monitors): see /api/ready. */
export const GET = readiness;
