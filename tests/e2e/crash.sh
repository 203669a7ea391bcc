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
# usage: crash.sh [one|two|log]   layout: one cache device (default), the
# cache spread over two (crash_two_caches.sh), or no cache and a
# log-structured RAID-5 tier with mirrored NVRAM (crash_log.sh).
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
  log)
    # Every write a record in NVRAM: 256 segments of 256 KiB (two 128 KiB
    # stripes) on three disk files, 38 MiB of volume, the cleaner running
    # from half full, a 2 MiB NVRAM ring per mirror side.
    cat >"$WORK/layout.json" <<'JSON'
{
  "name": "crash",
  "tiers": [
    {"name": "capacity", "preset": "hdd-7200", "count": 3, "combine": "raid5", "chunk": "64k",
     "capacity": "32m",
     "log": {"segment_bytes": "256k", "usable": 0.6, "cleaner_start": 0.5,
             "nvram": {"capacity": "2m", "mirror": true}}}
  ]
}
JSON
    ;;
  *) fail "unknown layout $layout (one, two, log)" ;;
esac
"$TIERLAB_BIN" create "$WORK/layout.json" --name crash --dir "$WORK/vol" >/dev/null ||
  fail "create"
if [[ "$layout" == two ]]; then
  [[ -f "$WORK/vol/cache1.img" ]] || fail "create: no second cache device"
fi
if [[ "$layout" == log ]]; then
  [[ -f "$WORK/vol/capacity-nvram1.img" ]] || fail "create: no NVRAM mirror file"
fi
python3 "$(dirname "$0")/lib/crash_client.py" "$TIERLAB_BIN" "$WORK/vol" "$iters" "$seed" ||
  fail "crash client (seed $seed)"

if [[ "$layout" == log ]]; then
  # Every restart recovered the log; some had acknowledged writes whose
  # segment was not on the disks, replayed from the NVRAM records.
  recoveries=$(grep -c "tier capacity: log recovered" "$WORK/serve.err" || true)
  replayed=$(grep -o "NVRAM records, [0-9]* blocks replayed" "$WORK/serve.err" |
    awk '{ s += $3 } END { print s + 0 }')
  echo "log recoveries $recoveries, blocks replayed from NVRAM $replayed"
  [[ "$recoveries" -ge "$iters" ]] || fail "only $recoveries log recoveries for $iters restarts"
  [[ "$replayed" -gt 0 ]] || fail "no restart replayed a block from NVRAM"
fi

"$TIERLAB_BIN" flush "$WORK/vol" >/dev/null 2>&1 || fail "flush"
"$TIERLAB_BIN" check "$WORK/vol" >"$WORK/check.out" || { cat "$WORK/check.out"; fail "check"; }
if [[ "$layout" != log ]]; then
  grep -q "dirty       0 lines" "$WORK/check.out" || fail "dirty lines left after flush"
fi
"$TIERLAB_BIN" destroy "$WORK/vol" >/dev/null || fail "destroy"
[[ ! -e "$WORK/vol" ]] || fail "destroy left the volume directory"

if [[ "$layout" == log ]]; then
  # The same layout in `run --real` on temp files: verified random writes
  # and reads through the log, its counters in the results.
  cat >"$WORK/verify.fio" <<'FIO'
[w]
rw=randrw
rwmixread=50
bs=4k
iodepth=16
size=30m
runtime=2
time_based=1
verify=crc32c
FIO
  mkdir -p "$WORK/run"
  "$TIERLAB_BIN" run -l "$WORK/layout.json" -p "$WORK/verify.fio" --real --dir "$WORK/run" -q \
    >"$WORK/run.out" 2>&1 || { cat "$WORK/run.out"; fail "run --real on the log layout"; }
  grep -q "^log tier" "$WORK/run.out" || { cat "$WORK/run.out"; fail "no log tier row"; }
  ls "$WORK/run"/*nvram* >/dev/null 2>&1 && fail "run --real left its NVRAM files"
fi
echo PASS
