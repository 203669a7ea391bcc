#!/usr/bin/env bash
# Installs what is missing, builds, and runs tierlab's main job: the Storage
# Spaces Direct layout matrix (examples/s2d-layouts.json), printing the
# Markdown table and writing report.html (the self-contained HTML report with
# charts) to the repo root.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
results=$(mktemp --suffix=.json)
trap 'rm -f "$results"' EXIT
build/tierlab matrix examples/s2d-layouts.json -o "$results" -f md
build/tierlab report "$results" --format html -o report.html
echo
echo "HTML report: $(pwd)/report.html"
