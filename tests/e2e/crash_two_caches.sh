#!/usr/bin/env bash
# The crash test (crash.sh) on a volume whose cache spans two cache devices:
# dirty lines on both, the journal on device 0, flushes covering both.
# CI: 10 iterations (TIERLAB_CRASH_ITERATIONS and TIERLAB_LONG as in crash.sh).
if [[ -z "${TIERLAB_CRASH_ITERATIONS:-}" && "${TIERLAB_LONG:-0}" != 1 ]]; then
  export TIERLAB_CRASH_ITERATIONS=10
fi
exec bash "$(dirname "$0")/crash.sh" two
