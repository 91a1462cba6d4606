// Tests import server modules directly; the real "server-only" guard is for the bundler.
export {};
