"use client";

import { RouteError, type RouteErrorProps } from "@/components/route-error";

/** A dashboard page that failed: shown inside the dashboard's header and layout. */
export default function DashboardError(props: RouteErrorProps) {
  return <RouteError {...props} />;
}
