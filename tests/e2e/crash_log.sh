#!/usr/bin/env bash
# The crash test (crash.sh) on a volume whose capacity tier is a log
# (three disk files in RAID-5 written as 256 KiB segments, mirrored NVRAM
# files): each restart recovers the log's index from the segments and
# replays the writes acknowledged from NVRAM whose segment was not written.
# Then the same layout runs verified random I/O in `run --real`.
# CI: 10 iterations (TIERLAB_CRASH_ITERATIONS and TIERLAB_LONG as in crash.sh).
if [[ -z "${TIERLAB_CRASH_ITERATIONS:-}" && "${TIERLAB_LONG:-0}" != 1 ]]; then
  export TIERLAB_CRASH_ITERATIONS=10
fi
exec bash "$(dirname "$0")/crash.sh" log
