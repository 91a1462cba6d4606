import { buildWorker } from "./scripts/build-worker.mjs";

// The SQLite reader threads run a bundle of their own (lib/data/sqlite-readers.ts); building it
// here keeps it in step with the sources for every `next build` and `next start`.
buildWorker();

/** @type {import('next').NextConfig} */
const nextConfig = {
  serverExternalPackages: ["better-sqlite3", "pg", "kysely"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
