import { summaryRoute } from "@/lib/api/summary-handler";

export const dynamic = "force-dynamic";

export const { POST, GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = summaryRoute("chargeback");
