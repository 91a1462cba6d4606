import fs from "node:fs";
import path from "node:path";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";

/**
 * docs/architecture.md, "Layering rule": layers only point down and no import circles, held by the
 * rules of .dependency-cruiser.mjs over the whole tree (the same as `npm run lint:deps`).
 */

const ROOT = path.resolve(import.meta.dirname, "../..");

/** What `npm run lint:deps` cruises, read from its command line so that the two never differ. */
function cruisedPaths(): string[] {
  const script: string = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts["lint:deps"];
  const [command, configFlag, configFile, ...paths] = script.split(/\s+/);
  expect([command, configFlag, configFile]).toEqual(["depcruise", "--config", ".dependency-cruiser.mjs"]);
  return paths;
}

async function cruiseTree(): Promise<ICruiseResult> {
  const previous = process.cwd();
  // dependency-cruiser names and resolves modules relative to the working directory.
  process.chdir(ROOT);
  try {
    const options = await extractDepcruiseOptions("./.dependency-cruiser.mjs");
    const result = await cruise(cruisedPaths(), options, {}, { tsConfig: extractTSConfig("tsconfig.json") });
    return result.output as ICruiseResult;
  } finally {
    process.chdir(previous);
  }
}

describe("architecture", () => {
  it("keeps every layer pointing down, with no import circle", async () => {
    const result = await cruiseTree();

    const violations = result.summary.violations.map(
      (v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle?.length ? ` (circle: ${[v.from, ...v.cycle.map((step) => step.name)].join(" -> ")})` : ""}`,
    );
    expect(violations, `dependency rules broken (.dependency-cruiser.mjs):\n${violations.join("\n")}`).toEqual([]);

    // Not blind: the tree was read, and the "@/" imports resolved to files (tsconfig.json paths),
    // type-only ones included, or every rule above would pass on nothing.
    expect(result.summary.totalCruised).toBeGreaterThan(100);
    const dependenciesOf = (source: string) => result.modules.find((m) => m.source === source)?.dependencies ?? [];
    expect(dependenciesOf("lib/api/route.ts").map((d) => d.resolved)).toContain("lib/data/db.ts");
    expect(dependenciesOf("lib/data/selection.ts").find((d) => d.resolved === "lib/domain/fields.ts")?.dependencyTypes).toContain("type-only");
  });
});
