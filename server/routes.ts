import fs from "node:fs";
import path from "node:path";

/**
 * The route pattern a request path is served by, for the metrics' `route` label (docs/api.md,
 * "Metrics"): the app's routes as Next built them (.next/app-path-routes-manifest.json: route
 * groups left out, dynamic segments in brackets), Next's own static assets, and the files of
 * public/. A path that matches none of them is "unmatched". The label is always a pattern, never
 * the path: its values are as few as the app's routes.
 */

export const UNMATCHED = "unmatched";
/** Next's build output (scripts, styles, fonts): one pattern for all of it. */
export const NEXT_STATIC = "/_next/static/[...path]";

interface Dynamic {
  pattern: string;
  regex: RegExp;
  /** lower sorts first: more static segments, then single dynamic segments before catch-alls */
  rank: number[];
}

/** Escapes a static segment for a regular expression. */
const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function compile(pattern: string): Dynamic {
  const segments = pattern.split("/").filter(Boolean);
  let source = "^";
  let statics = 0;
  let catchAll = 0;
  for (const segment of segments) {
    if (/^\[\[\.\.\.[^\]]+\]\]$/.test(segment)) {
      source += "(?:/.+)?";
      catchAll = 2;
    } else if (/^\[\.\.\.[^\]]+\]$/.test(segment)) {
      source += "/.+";
      catchAll = Math.max(catchAll, 1);
    } else if (/^\[[^\]]+\]$/.test(segment)) {
      source += "/[^/]+";
    } else {
      source += `/${literal(segment)}`;
      statics++;
    }
  }
  return { pattern, regex: new RegExp(`${source || ""}/?$`), rank: [catchAll, -statics, -segments.length] };
}

function compareRank(a: Dynamic, b: Dynamic): number {
  for (let i = 0; i < a.rank.length; i++) if (a.rank[i] !== b.rank[i]) return a.rank[i] - b.rank[i];
  return a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0;
}

/** A function from a request path (query string allowed) to its route pattern, from the given patterns. */
export function routeMatcher(patterns: readonly string[]): (url: string) => string {
  const statics = new Set<string>();
  const dynamics: Dynamic[] = [];
  for (const pattern of patterns) {
    if (pattern.includes("[")) dynamics.push(compile(pattern));
    else statics.add(pattern);
  }
  dynamics.sort(compareRank);
  return (url) => {
    const pathname = url.split("?")[0].split("#")[0];
    if (!pathname.startsWith("/")) return UNMATCHED;
    if (statics.has(pathname)) return pathname;
    // Next answers /x/ with a redirect to /x: the same route.
    const trimmed = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
    if (statics.has(trimmed)) return trimmed;
    if (pathname.startsWith("/_next/static/")) return NEXT_STATIC;
    for (const d of dynamics) if (d.regex.test(pathname)) return d.pattern;
    return UNMATCHED;
  };
}

/**
 * The patterns of the build in `root`: the app's routes (without Next's internal /_not-found and /_global-error) and
 * public/'s files. Without a build (none found) only public/ and Next's assets are known.
 */
export function builtRoutePatterns(root: string): string[] {
  const patterns: string[] = [];
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, ".next", "app-path-routes-manifest.json"), "utf8")) as Record<string, string>;
    for (const route of Object.values(manifest)) if (route !== "/_not-found" && route !== "/_global-error") patterns.push(route);
  } catch {
    // no build: the server itself will say so when Next prepares
  }
  const walk = (dir: string, prefix: string) => {
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name), `${prefix}/${entry.name}`);
      else patterns.push(`${prefix}/${entry.name}`);
    }
  };
  walk(path.join(root, "public"), "");
  return [...new Set(patterns)];
}
