import { expect } from "vitest";
import { openDatabase } from "@/lib/data/connection/db";
import { importPaths } from "@/lib/import";

/** Imports the files of `paths` into the database `url` names, in-process, and requires every file to load. */
export async function importInto(url: string, paths: string[]): Promise<void> {
  const db = await openDatabase(url);
  try {
    const lines: string[] = [];
    const result = await importPaths(db, paths, (line) => lines.push(line));
    expect(result.ok, lines.join("\n")).toBe(true);
  } finally {
    await db.close();
  }
}
