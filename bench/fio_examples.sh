#!/usr/bin/env bash
# The yardstick of issue 16: fio's own examples/*.fio, read by tierlab. For
# each job file, "runs" when tierlab reads every option of it (`tierlab
# profiles show`, the parser every run goes through), else the one-line
# error tierlab gives. Prints a Markdown table and the totals;
# docs/FIO-COMPAT.md ("fio's examples") comes from it.
#
#   bench/fio_examples.sh FIO_EXAMPLES_DIR [build-dir]
#
# FIO_EXAMPLES_DIR: fio's examples/ folder, e.g. from a clone of
# https://github.com/axboe/fio (not shipped here: fio's files are not ours).
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 FIO_EXAMPLES_DIR [build-dir]" >&2; exit 2; }
dir=$1
repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${2:-${TIERLAB_BUILD_DIR:-$repo/build}}"
[ -x "$build/tierlab" ] || { echo "$build/tierlab not built (ninja -C $build tierlab)" >&2; exit 2; }
bin="$(cd "$build" && pwd)/tierlab"  # absolute: each file is read from its folder
[ -d "$dir" ] || { echo "$dir: not a directory" >&2; exit 2; }

runs=0 refused=0
echo "| job file | tierlab |"
echo "|---|---|"
for f in "$dir"/*.fio; do
  name=$(basename "$f")
  # Job files name fio's environment variables; give them values as a user
  # running the example would.
  if out=$(cd "$dir" && FILENAME=/dev/null SIZE=1g RUNTIME=10 DIR=. FIO_BS=4k "$bin" profiles show "$name" \
             2>&1 >/dev/null); then
    runs=$((runs + 1))
    echo "| $name | runs |"
  else
    refused=$((refused + 1))
    echo "| $name | ${out//|/\\|} |"
  fi
done
echo
echo "$runs of $((runs + refused)) run; $refused refused with one line."
