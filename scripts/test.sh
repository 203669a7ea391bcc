#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit, end-to-end,
# real clients).
#
#   scripts/test.sh [--asan|--debug|--fuzz] [ctest args...]
#
# --fuzz builds the libFuzzer targets with clang (build-fuzz/) and runs each
# for 20 s (fuzz/README.md). TIERLAB_LONG=1 selects the long soak, crash
# and fuzz (300 s a target) settings for manual runs.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=release
args=()
for arg in "$@"; do
  case "$arg" in
    --asan) mode=asan ;;
    --debug) mode=debug ;;
    --fuzz) mode=fuzz ;;
    *) args+=("$arg") ;;
  esac
done
case "$mode" in
  release) dir=build ;;
  debug) dir=build-debug ;;
  asan) dir=build-asan ;;
  fuzz) dir=build-fuzz ;;
esac

if [ "$mode" = release ]; then scripts/bootstrap.sh; else scripts/bootstrap.sh "--$mode"; fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ "$mode" = fuzz ]; then
  # The time a target runs is the build's (fuzz/CMakeLists.txt); set it for
  # this run. Only the fuzz targets are built in that tree.
  seconds=20
  [ "${TIERLAB_LONG:-0}" != 1 ] || seconds=300
  cmake -S . -B "$dir" -DTIERLAB_FUZZ_TIME="$seconds" >/dev/null
  args=(-L fuzz "${args[@]}")
fi
cd "$dir"
ctest --output-on-failure -j "$(nproc)" "${args[@]}"
