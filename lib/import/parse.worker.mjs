// Entry of the import's parsing thread: loads the TypeScript worker through tsx, like the commands.
import { tsImport } from "tsx/esm/api";

await tsImport("./parse.worker.ts", import.meta.url);
