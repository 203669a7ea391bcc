#!/usr/bin/env bash
# Crash test with the second client, written apart from the first
# (lib/multiconn_crash_client.py): three writer connections and one that
# only flushes (the export advertises NBD_FLAG_CAN_MULTI_CONN, so a flush
# covers what was acknowledged on any connection before it was sent), writes
# of 1 to 16 blocks, FUA, TRIM and WRITE_ZEROES, live reads, SIGKILL at a
# random moment, `tierlab check`, restart, every block of the volume read
# and compared with what the client knows was flushed.
#
# Then the negative control: the same client against the same layout served
# without persistent metadata (`tierlab serve LAYOUT.json`) must report lost
# data after SIGKILL; if it reports nothing, the client is not checking.
#
# CI: 8 iterations. TIERLAB_LONG=1: 300 (TIERLAB_CRASH_ITERATIONS
# overrides; TIERLAB_CRASH_SEED fixes the seed).
source "$(dirname "$0")/lib/serve.bash"
need python3

iters="${TIERLAB_CRASH_ITERATIONS:-}"
if [[ -z "$iters" ]]; then
  if [[ "${TIERLAB_LONG:-0}" == 1 ]]; then iters=300; else iters=8; fi
fi
seed="${TIERLAB_CRASH_SEED:-$RANDOM}"
client="$(dirname "$0")/lib/multiconn_crash_client.py"
echo "iterations=$iters seed=$seed"

write_layout "$WORK/layout.json" mc
"$TIERLAB_BIN" create "$WORK/layout.json" --name mc --dir "$WORK/vol" >/dev/null || fail "create"
python3 "$client" "$TIERLAB_BIN" "$WORK/vol" "$iters" "$seed" --run-seconds 0.8 \
  --log "$WORK/serve.err" >"$WORK/client.out" || { cat "$WORK/client.out"; fail "crash client (seed $seed)"; }
grep -q "can_multi_conn=yes, flushes on their own connection" "$WORK/client.out" ||
  fail "the export does not advertise CAN_MULTI_CONN: $(head -1 "$WORK/client.out")"
tail -1 "$WORK/client.out"
"$TIERLAB_BIN" flush "$WORK/vol" >/dev/null 2>&1 || fail "flush"
"$TIERLAB_BIN" check "$WORK/vol" >"$WORK/check.out" || { cat "$WORK/check.out"; fail "check"; }
grep -q "dirty       0 lines" "$WORK/check.out" || fail "dirty lines left after flush"
"$TIERLAB_BIN" destroy "$WORK/vol" >/dev/null || fail "destroy"

# Negative control: no metadata, so flushed writes still in the cache are
# gone after SIGKILL, and the client must say so.
mkdir "$WORK/control"
rc=0
python3 "$client" "$TIERLAB_BIN" "$WORK/layout.json" 3 "$seed" --data-dir "$WORK/control" \
  --log "$WORK/control.err" >"$WORK/control.out" || rc=$?
[[ $rc -eq 1 ]] && grep -q "is older than its last flushed version" "$WORK/control.out" ||
  fail "negative control: the client did not report the loss (exit $rc): $(head -5 "$WORK/control.out")"
echo "negative control: $(grep -m1 -o "[0-9]* bad block(s)" "$WORK/control.out") after SIGKILL without metadata"
echo PASS
