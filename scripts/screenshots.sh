#!/usr/bin/env bash
# The README's screenshots (docs/screenshots/*.png), on request: the browser specs that take them
# (those calling screenshotPath), on SQLite, over the production build (`npm run build` first).
# A test run writes its screenshots under test-results/ instead, so that it leaves the tree clean.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t specs < <(grep -l "screenshotPath(" tests/e2e/*.spec.ts)
E2E_SCREENSHOTS=1 E2E_BACKEND=sqlite npx playwright test "${specs[@]}" "$@"
