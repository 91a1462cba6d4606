import { buildCommands } from "./helpers/compiled-commands";

/** Once per vitest run, before any test file: the commands the tests start, compiled (helpers/compiled-commands.ts). */
export default function setup(): void {
  buildCommands();
}
