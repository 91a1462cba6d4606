import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Every rule the code cites is in the repository: a comment that cites `docs/<file>.md, "<Heading>"`
 * names a file of docs/ and one of its headings, and nothing cites the outside rule set by its
 * section numbers, nor the acquirer's service description or a numbered work item. Renaming a heading without its citations fails here.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");
const FOLDERS = ["app", "components", "lib", "scripts", "server", "tests", "bench"];
const CITATION = /docs\/([a-z-]+)\.md,\s*"([^"]+)"/g;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "results") out.push(...sources(full));
    } else if (/\.(ts|tsx|mjs|cjs|js|sh)$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** A heading cited across a comment's line break: "Import of acquirer\n * files" is "Import of acquirer files". */
const unwrap = (text: string) => text.replace(/\s*\n\s*(?:\*|\/\/)?\s*/g, " ");

function headings(file: string): Set<string> {
  return new Set(
    fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => /^#{1,6} /.test(line))
      .map((line) => line.replace(/^#{1,6} /, "").trim()),
  );
}

describe("citations of the docs", () => {
  const files = FOLDERS.flatMap((folder) => (fs.existsSync(path.join(ROOT, folder)) ? sources(path.join(ROOT, folder)) : []));
  const citations = files.flatMap((file) => [...fs.readFileSync(file, "utf8").matchAll(CITATION)].map((m) => ({ file: path.relative(ROOT, file), doc: m[1], heading: unwrap(m[2]) })));

  it("finds the citations it checks", () => {
    expect(citations.length).toBeGreaterThan(50);
  });

  it("names a heading that exists in the cited document", () => {
    const known = new Map<string, Set<string>>();
    const missing = citations.filter(({ doc, heading }) => {
      const file = path.join(ROOT, "docs", `${doc}.md`);
      if (!known.has(doc)) known.set(doc, fs.existsSync(file) ? headings(file) : new Set());
      return !known.get(doc)!.has(heading);
    });
    expect(missing.map((c) => `${c.file}: docs/${c.doc}.md, "${c.heading}"`)).toEqual([]);
  });

  it("never cites a document outside the repository, nor a numbered work item", () => {
    // The acquirer's service description and the contract are not in the repository: a comment, a
    // message or a document that says "SPEC 2.2" or "issue 23" sends its reader nowhere.
    const outsideRef = /\bSPEC(?:\.md|\s+\d)|\bCONTRACT\.md|\b[Ii]ssue \d+\b/;
    const self = (file: string) => file.endsWith("doc-citations.test.ts");
    const documents = [...fs.readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => path.join(ROOT, "docs", f)), path.join(ROOT, "README.md")];
    const offending = [...files, ...documents].filter((file) => !self(file) && outsideRef.test(fs.readFileSync(file, "utf8")));
    expect(offending.map((f) => path.relative(ROOT, f))).toEqual([]);
  });

  it("never cites the outside contract by section number", () => {
    const outside = files.filter((file) => !file.endsWith("doc-citations.test.ts") && /CONTRACT \d/.test(fs.readFileSync(file, "utf8")));
    expect(outside.map((f) => path.relative(ROOT, f))).toEqual([]);
  });
});
