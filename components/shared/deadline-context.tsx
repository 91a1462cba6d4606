"use client";

import { createContext, useContext, useEffect, useState } from "react";
import { localToday } from "@/lib/domain/calendar";
import { DEFAULT_DEADLINE_CONFIG, type DeadlineConfig } from "@/lib/domain/deadlines";

/**
 * The deadline windows come from the server's environment (lib/domain/deadlines.ts) as props;
 * "today" is the user's own calendar date, so days left count in the merchant's time zone.
 */
const DeadlineContext = createContext<{ config: DeadlineConfig; today: string }>({ config: DEFAULT_DEADLINE_CONFIG, today: localToday() });

export function DeadlineProvider({ config, children }: { config: DeadlineConfig; children: React.ReactNode }) {
  const [today, setToday] = useState(() => localToday());
  useEffect(() => {
    // A tab left open overnight moves on to the new day.
    const timer = window.setInterval(() => setToday(localToday()), 60_000);
    return () => window.clearInterval(timer);
  }, []);
  return <DeadlineContext.Provider value={{ config, today }}>{children}</DeadlineContext.Provider>;
}

export function useDeadlines() {
  return useContext(DeadlineContext);
}
