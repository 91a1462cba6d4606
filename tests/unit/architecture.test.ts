import fs from "node:fs";
import path from "node:path";
import { cruise, type ICruiseResult } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { describe, expect, it } from "vitest";
import config, { DATA_LAYERS, type Layer, LAYERS } from "../../.dependency-cruiser.mjs";

/**
 * docs/architecture.md, "Layering rule": layers only point down and no import circles, held by the
 * rules of .dependency-cruiser.mjs over the whole tree (the same as `npm run lint:deps`), and every
 * module of lib/ has its place in the layers.
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
    expect(dependenciesOf("lib/api/route.ts").map((d) => d.resolved)).toContain("lib/data/connection/db.ts");
    expect(dependenciesOf("lib/data/queries/selection.ts").find((d) => d.resolved === "lib/domain/fields.ts")?.dependencyTypes).toContain("type-only");

    // Every module of lib/ belongs to exactly one member of a layer, and every one of lib/data to
    // one of its kinds: a new folder or root module has to be placed before the rules see it.
    const memberOf = (layers: readonly Layer[], file: string) =>
      layers.flatMap((layer) => layer.members).filter((member) => (/\.[a-z]+$/.test(member) ? file === member : file.startsWith(`${member}/`)));
    const libModules = result.modules.map((m) => m.source).filter((source) => source.startsWith("lib/"));
    expect(libModules.length).toBeGreaterThan(100);
    expect(libModules.filter((file) => memberOf(LAYERS, file).length !== 1)).toEqual([]);
    expect(libModules.filter((file) => file.startsWith("lib/data/") && memberOf(DATA_LAYERS, file).length !== 1)).toEqual([]);
  });

  it("states rules that forbid what the layering forbids", () => {
    // The generated rules are not empty patterns: each edge below breaks exactly the rule named.
    const matches = (pattern: unknown, file: string) => typeof pattern === "string" && new RegExp(pattern).test(file);
    const broken = (from: string, to: string) =>
      config.forbidden.filter((rule) => matches(rule.from?.path, from) && matches(rule.to?.path, to) && !matches(rule.to?.pathNot, to)).map((rule) => rule.name);
    expect(broken("lib/domain/money.ts", "lib/schemas/search.ts")).toEqual(["layer:lib/domain"]);
    expect(broken("lib/data/queries/search.ts", "lib/api/route.ts")).toEqual(["layer:lib/data"]);
    expect(broken("lib/mail/dispatcher.ts", "lib/import/index.ts")).toEqual(["layer:lib/mail"]);
    expect(broken("lib/mail/dispatcher.ts", "lib/webhooks/store.ts")).toEqual(["layer:lib/mail"]);
    expect(broken("lib/log.ts", "lib/data/connection/db.ts")).toEqual(["layer:lib/log.ts"]);
    expect(broken("lib/data/connection/db.ts", "lib/data/aggregates/disputes.ts")).toEqual(["data:lib/data/connection"]);
    expect(broken("lib/data/aggregates/disputes.ts", "lib/data/queries/worklist.ts")).toEqual(["data:lib/data/aggregates"]);
    expect(broken("lib/api/route.ts", "tests/helpers/db.ts")).toEqual(["no-tests-in-product"]);
    // What the layering allows breaks nothing: downwards, and the connection running the migrations.
    expect(broken("lib/api/route.ts", "lib/data/connection/db.ts")).toEqual([]);
    expect(broken("lib/log.ts", "lib/config.ts")).toEqual([]);
    expect(broken("lib/data/connection/db.ts", "lib/data/migrations/index.ts")).toEqual([]);
    expect(broken("lib/data/queries/selection.ts", "lib/data/aggregates/record-counts.ts")).toEqual([]);
  });
});
