"use client";

import { useQuery } from "@tanstack/react-query";
import { useDeadlines } from "@/components/shared/deadline-context";
import { retryTransient } from "@/components/shared/problem-text";
import { addDays } from "@/lib/domain/calendar";
import { ANSWERABLE_STATUSES } from "@/lib/domain/deadlines";
import { fetchWorklist } from "./worklist-view";

/**
 * The navigation's count of what needs an answer this week: overdue but still answerable, or due
 * within 7 days of the user's today. Expired disputes never count (the default statuses).
 */
export function DueThisWeek() {
  const { today } = useDeadlines();
  const body = { statuses: ANSWERABLE_STATUSES, as_of: today, answer_by_to: addDays(today, 7), per_page: 10 };
  const query = useQuery({ queryKey: ["worklist", body], queryFn: ({ signal }) => fetchWorklist(body, signal), retry: retryTransient });
  const count = query.data?.totalElements;
  if (!count) return null;
  return (
    <span className="ml-1.5 inline-flex min-w-5 items-center justify-center rounded-full bg-red-700 px-1.5 text-xs font-semibold text-white" data-testid="due-this-week">
      {count > 999 ? "999+" : count}
      <span className="sr-only"> due this week</span>
    </span>
  );
}
