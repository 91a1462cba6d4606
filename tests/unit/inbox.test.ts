import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importInbox } from "@/lib/config";
import { configurationProblems } from "@/lib/config-check";
import { freeName, inboxLockFileOf, isInboxName } from "@/lib/import/inbox";

/** The import inbox's pure rules (docs/api.md, "Import inbox"): which names it takes, the free name on a clash, IMPORT_INBOX. */

describe("import inbox names", () => {
  it("takes *.csv in any letter case, never hidden or partial files", () => {
    for (const name of ["CHB_20260212.csv", "PREARB_7_20260212.CSV", "notes.Csv", "CHB_20260212.1.csv"]) expect(isInboxName(name), name).toBe(true);
    for (const name of [".CHB_20260212.csv", "CHB_20260212.csv.part", "CHB_20260212.txt", "CHB_20260212.csv.problems.txt", "csv", "imported"]) expect(isInboxName(name), name).toBe(false);
  });

  it("gives a taken name the smallest free .<n> before its extension", () => {
    const taken = (names: string[]) => (candidate: string) => names.includes(candidate);
    expect(freeName("CHB_20260212.csv", taken([]))).toBe("CHB_20260212.csv");
    expect(freeName("CHB_20260212.csv", taken(["CHB_20260212.csv"]))).toBe("CHB_20260212.1.csv");
    expect(freeName("CHB_20260212.csv", taken(["CHB_20260212.csv", "CHB_20260212.1.csv", "CHB_20260212.3.csv"]))).toBe("CHB_20260212.2.csv");
    expect(freeName("CHB_20260212.CSV", taken(["CHB_20260212.CSV"]))).toBe("CHB_20260212.1.CSV");
  });

  it("keeps the SQLite inbox lock beside the database", () => {
    expect(inboxLockFileOf("/srv/data/disputes.sqlite")).toBe("/srv/data/disputes.inbox-lock.sqlite");
    expect(inboxLockFileOf("/srv/data/disputes")).toBe("/srv/data/disputes.inbox-lock.sqlite");
  });
});

describe("IMPORT_INBOX", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "inbox-config-"));
  const aFile = path.join(dir, "a-file");
  fs.writeFileSync(aFile, "");

  it("is a folder, or one still to come; unset or empty means no inbox", () => {
    expect(importInbox({})).toBeUndefined();
    expect(importInbox({ IMPORT_INBOX: "" })).toBeUndefined();
    expect(importInbox({ IMPORT_INBOX: dir })).toBe(dir);
    expect(importInbox({ IMPORT_INBOX: path.join(dir, "later") })).toBe(path.join(dir, "later"));
  });

  it("stops the start when it names a file", () => {
    expect(configurationProblems({ IMPORT_INBOX: aFile })).toEqual([`IMPORT_INBOX must name a folder, but ${JSON.stringify(aFile)} is a file`]);
    expect(configurationProblems({ IMPORT_INBOX: dir })).toEqual([]);
  });
});
