import { PHASE_DEVELOPMENT_SERVER, PHASE_PRODUCTION_BUILD } from "next/constants.js";
import { buildWorker } from "./scripts/build-worker.mjs";

/** @type {import('next').NextConfig} */
const nextConfig = {
  serverExternalPackages: ["better-sqlite3", "pg", "kysely", "prom-client"],
  poweredByHeader: false,
  reactStrictMode: true,
  // The test suite (scripts/test.sh) checks the types once, in `npm run lint` right after the
  // build: BUILD_SKIP_TYPE_CHECK=1 leaves out the build's own check of the same files (23 s).
  typescript: { ignoreBuildErrors: process.env.BUILD_SKIP_TYPE_CHECK === "1" },
};

// The SQLite reader threads and the production server run bundles of their own
// (scripts/build-worker.mjs), built here so that they are in step with the sources for every
// `next build` and `next dev`. Not when the production server itself loads this configuration:
// it runs those very bundles, and esbuild's service process would stay beside it (15 MB).
export default function config(phase) {
  if (phase === PHASE_PRODUCTION_BUILD || phase === PHASE_DEVELOPMENT_SERVER) buildWorker();
  return nextConfig;
}
