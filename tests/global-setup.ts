import type { TestProject } from "vitest/node";
import { startSharedApiEnvs } from "./api/harness";
import { buildCommands } from "./helpers/compiled-commands";
import { backends, dropCreatedDatabases } from "./helpers/db";

/**
 * Once per vitest run, before any test file: the commands the tests start, compiled
 * (helpers/compiled-commands.ts), then one shared read-only API environment per backend of the run
 * (api/harness.ts, `sharedApiEnv`), stopped and dropped after the last file.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  buildCommands();
  const shared = await startSharedApiEnvs(backends);
  project.provide("sharedApiEnvs", shared.infos);
  return async () => {
    await shared.stop();
    await dropCreatedDatabases();
  };
}
