import { expect } from "vitest";

/**
 * The command's standard error: one JSON line per file (docs/api.md, "Metrics", its last paragraph), in the order the
 * files were settled, as `<file> <kind> <outcome> <records or problems>`; every line must be one.
 */
export function importLog(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(entry).toMatchObject({ level: "info", msg: "import file", source: "command" });
      expect(typeof entry.duration_ms === "number" && entry.duration_ms >= 0).toBe(true);
      return `${String(entry.file)} ${String(entry.kind)} ${String(entry.outcome)} ${String(entry.records ?? entry.problems ?? "")}`.trimEnd();
    });
}

