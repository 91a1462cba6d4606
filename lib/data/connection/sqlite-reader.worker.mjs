// Entry of a SQLite reader thread: loads the TypeScript worker through tsx, as the commands do.
import { tsImport } from "tsx/esm/api";

await tsImport("./sqlite-reader.worker.ts", import.meta.url);
