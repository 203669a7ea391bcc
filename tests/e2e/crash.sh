#!/usr/bin/env bash
# Crash test: a persistent volume (tierlab create) served over NBD, a
# verified write workload with periodic flushes and some FUA writes, SIGKILL
# of the server at a random moment, `tierlab check`, restart, and a read of
# every block: each holds its content as of the last completed flush or a
# newer write, never older data and never data that was not written to it
# (lib/crash_client.py). Then the volume is flushed, checked and destroyed.
#
# CI: 15 iterations. TIERLAB_LONG=1: 1000 (TIERLAB_CRASH_ITERATIONS overrides).
#
# usage: crash.sh [one|two]   layout: one cache device (default), or the
# cache spread over two (crash_two_caches.sh).
source "$(dirname "$0")/lib/serve.bash"
need python3

layout="${1:-${TIERLAB_CRASH_LAYOUT:-one}}"

iters="${TIERLAB_CRASH_ITERATIONS:-}"
if [[ -z "$iters" ]]; then
  if [[ "${TIERLAB_LONG:-0}" == 1 ]]; then iters=1000; else iters=15; fi
fi
seed="${TIERLAB_CRASH_SEED:-$RANDOM}"
echo "layout=$layout iterations=$iters seed=$seed"

case "$layout" in
  one) write_layout "$WORK/layout.json" crash ;;
  two) write_layout "$WORK/layout.json" crash 2 ;;
  *) fail "unknown layout $layout (one, two)" ;;
esac
"$TIERLAB_BIN" create "$WORK/layout.json" --name crash --dir "$WORK/vol" >/dev/null ||
  fail "create"
if [[ "$layout" == two ]]; then
  [[ -f "$WORK/vol/cache1.img" ]] || fail "create: no second cache device"
fi
python3 "$(dirname "$0")/lib/crash_client.py" "$TIERLAB_BIN" "$WORK/vol" "$iters" "$seed" ||
  fail "crash client (seed $seed)"

"$TIERLAB_BIN" flush "$WORK/vol" >/dev/null 2>&1 || fail "flush"
"$TIERLAB_BIN" check "$WORK/vol" >"$WORK/check.out" || { cat "$WORK/check.out"; fail "check"; }
grep -q "dirty       0 lines" "$WORK/check.out" || fail "dirty lines left after flush"
"$TIERLAB_BIN" destroy "$WORK/vol" >/dev/null || fail "destroy"
[[ ! -e "$WORK/vol" ]] || fail "destroy left the volume directory"
echo PASS
