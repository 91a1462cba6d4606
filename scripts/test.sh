#!/usr/bin/env bash
# The whole test suite: production build, unit + integration + API tests (vitest), then the
# browser tests (Playwright, once per backend). SQLite always; PostgreSQL too when
# TEST_DATABASE_URL is set, and then an unreachable server fails the run instead of skipping.
set -euo pipefail
cd "$(dirname "$0")/.."

# Whether PostgreSQL is tested: when TEST_DATABASE_URL is set, an unreachable server fails the run.
check_backends() {
  if [ -n "${TEST_DATABASE_URL:-}" ]; then
    node -e '
      const pg = require("pg");
      const c = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL, connectionTimeoutMillis: 5000 });
      c.connect().then(() => c.end()).catch((e) => { console.error("TEST_DATABASE_URL is set but PostgreSQL is unreachable: " + e.message); process.exit(1); });
    '
    echo "Testing on SQLite and PostgreSQL (TEST_DATABASE_URL)."
  else
    echo "Testing on SQLite only: set TEST_DATABASE_URL=postgres://... to test PostgreSQL too."
  fi
}
# At once, unless .ci/run is still installing PostgreSQL beside the build and lint
# (SYSTEM_PACKAGES_STATUS): then after them, once it is there.
[ -n "${SYSTEM_PACKAGES_STATUS:-}" ] || check_backends

# Every temporary file and folder of the run (databases, keys, clusters, browser profiles) goes
# under one folder that is removed at the end, so repeated runs do not fill the machine's /tmp.
# Sticky and world-writable like /tmp: the private PostgreSQL clusters run as the postgres user.
TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/dispute-tests.XXXXXX")"
chmod 1777 "$TMPDIR"
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

# The tree's state before the run, to compare with after it (a developer's own changes are theirs).
tree_before="$(git status --porcelain 2>/dev/null || true)"

stage() {
  local name="$1" start=$SECONDS
  shift
  "$@" || { local code=$?; echo "== $name failed after $((SECONDS - start)) s"; return "$code"; }
  echo "== $name: $((SECONDS - start)) s"
}

# The build first: the type check reads the route types it writes (.next/types, next-env.d.ts).
# The build leaves the type check to lint's tsc, which checks the same files (next.config.mjs).
stage "build" env BUILD_SKIP_TYPE_CHECK=1 npx next build
stage "lint (eslint, tsc, dependency-cruiser)" npm run -s lint
# What .ci/run installs beside the build and lint stages, which the rest needs: the system
# packages and PostgreSQL's setup (its output printed), and the native addons.
if [ -n "${SYSTEM_PACKAGES_STATUS:-}" ]; then
  stage "waiting for the system packages and PostgreSQL" bash -c 'until [ -s "$SYSTEM_PACKAGES_STATUS" ]; do sleep 1; done; cat "$SYSTEM_PACKAGES_STATUS.log"; exit "$(cat "$SYSTEM_PACKAGES_STATUS")"'
  check_backends
fi
if [ -n "${NATIVE_BUILD_STATUS:-}" ]; then
  stage "waiting for the native addons' build" bash -c 'until [ -s "$NATIVE_BUILD_STATUS" ]; do sleep 1; done; code="$(cat "$NATIVE_BUILD_STATUS")"; [ "$code" = 0 ] || { cat "$NATIVE_BUILD_STATUS.log"; exit "$code"; }'
fi
stage "vitest" npx vitest run

# The browser tests on SQLite, then on PostgreSQL. Both run even when the first fails; each keeps
# its own results (test-results[-postgres]/, playwright-report[-postgres]/, see
# playwright.config.ts), and the suite fails when either fails. On PostgreSQL only the specs tagged
# @postgres (tests/e2e/helpers.ts, ON_POSTGRES): those whose page reaches the database by a path
# of its own; every other page shows what the API routes answer, which tests/api runs on both.
# Without traces unless E2E_TRACE asks for them (for example E2E_TRACE=retain-on-failure): recording
# one for every test costs a quarter of the browser tests' time, to keep only the failures' ones.
# A plain `npx playwright test` keeps the failures' traces (playwright.config.ts).
status=0
trace=(--trace "${E2E_TRACE:-off}")
stage "playwright on sqlite" env E2E_BACKEND=sqlite npx playwright test "${trace[@]}" || status=$?
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  stage "playwright on postgres (@postgres)" env E2E_BACKEND=postgres npx playwright test --grep @postgres "${trace[@]}" || status=$?
fi

# A run leaves the tree as it found it: nothing new or changed outside what .gitignore names.
tree_after="$(git status --porcelain 2>/dev/null || true)"
if [ "$tree_after" != "$tree_before" ]; then
  echo "the test run changed the work tree (git status before and after):"
  diff <(echo "$tree_before") <(echo "$tree_after") || true
  status=1
fi
exit "$status"
