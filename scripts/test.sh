#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, end-to-end,
# real clients).
#
#   scripts/test.sh [--asan|--debug] [ctest args...]
#
# TIERLAB_LONG=1 selects the long soak/crash/fuzz settings for manual runs.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=release
args=()
for arg in "$@"; do
  case "$arg" in
    --asan) mode=asan ;;
    --debug) mode=debug ;;
    *) args+=("$arg") ;;
  esac
done
case "$mode" in
  release) dir=build ;;
  debug) dir=build-debug ;;
  asan) dir=build-asan ;;
esac

if [ "$mode" = release ]; then scripts/bootstrap.sh; else scripts/bootstrap.sh "--$mode"; fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$dir"
ctest --output-on-failure -j "$(nproc)" "${args[@]}"
