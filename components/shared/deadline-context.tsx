"use client";

import { createContext, useContext, useMemo, useSyncExternalStore } from "react";
import { localToday } from "@/lib/domain/calendar";
import { DEFAULT_DEADLINE_CONFIG, type DeadlineConfig } from "@/lib/domain/deadlines";

/**
 * The deadline windows come from the server's environment (lib/domain/deadlines.ts) as props;
 * "today" is the user's own calendar date, so days left and date presets count in the user's
 * time zone.
 */
const DeadlineContext = createContext<{ config: DeadlineConfig; today: string }>({ config: DEFAULT_DEADLINE_CONFIG, today: localToday() });

// A tab left open overnight moves on to the new day.
function subscribeToMinutes(onChange: () => void) {
  const timer = window.setInterval(onChange, 60_000);
  return () => window.clearInterval(timer);
}

/**
 * `serverToday`: the server's date, which the page is rendered with; the browser then renders
 * again with its own date (useSyncExternalStore), so the two never disagree during hydration.
 */
export function DeadlineProvider({ config, serverToday, children }: { config: DeadlineConfig; serverToday: string; children: React.ReactNode }) {
  const today = useSyncExternalStore(subscribeToMinutes, () => localToday(), () => serverToday);
  const value = useMemo(() => ({ config, today }), [config, today]);
  return <DeadlineContext.Provider value={value}>{children}</DeadlineContext.Provider>;
}

export function useDeadlines() {
  return useContext(DeadlineContext);
}
