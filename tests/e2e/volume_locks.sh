#!/usr/bin/env bash
# One user per volume and per device (docs/DURABILITY.md, "Locks"):
#   * a served volume's device is refused to a layout (`serve L.json`,
#     `run --real`), to `create` and to a layout naming one file twice;
#     a closed volume's cache device is refused by its superblock;
#   * the windows where a command holds the volume without serve.json
#     (serve's recovery, an offline flush) are seen by status, and destroy,
#     check --repair and serve refuse in them (the command is stopped there
#     with the TIERLAB_TEST_PAUSE_AT seam instead of racing it);
#   * flush through a stopped server (SIGSTOP) reports it instead of waiting;
#   * serve checks its --nbd endpoint before the recovery.
source "$(dirname "$0")/lib/serve.bash"
need python3 qemu-io

extra_pids=()
trap 'for p in "${extra_pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done; cleanup' EXIT

# wait_state PID LETTER: until /proc/PID/stat shows that state (T: stopped).
wait_state() {
  for _ in $(seq 200); do
    [[ "$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" == "$2" ]] && return 0
    sleep 0.025
  done
  fail "pid $1 never reached state $2"
}

write_layout "$WORK/layout.json" lk
vol="$WORK/vol"
sock="$WORK/nbd.sock"
qio() { qemu-io --image-opts "driver=nbd,server.type=unix,server.path=$sock" "$@"; }
"$TIERLAB_BIN" create "$WORK/layout.json" --name lk --dir "$vol" >/dev/null || fail "create"
# A layout naming the volume's cache device (and a spare capacity file).
python3 - "$WORK/layout.json" "$WORK/plain.json" "$vol/cache0.img" "$WORK/cap.img" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["name"] = "plain"
j["tiers"][0]["paths"] = [sys.argv[3]]
j["tiers"][1]["paths"] = [sys.argv[4]]
json.dump(j, open(sys.argv[2], "w"))
PY
echo '{"name": "q", "rw": "randwrite", "bs": "4k", "iodepth": 1, "runtime": "1s", "size": "1m"}' \
  >"$WORK/q.json"
sb_sum() { head -c 65536 "$vol/cache0.img" | cksum; }
sb_before=$(sb_sum)

# refused CODE PATTERN CMD...: CMD exits CODE and says PATTERN on stderr.
refused() {
  local code=$1 pattern=$2 rc=0
  shift 2
  timeout -s KILL 20 "$@" >"$WORK/r.out" 2>"$WORK/r.err" || rc=$?
  [[ $rc -eq $code ]] || fail "$* exited $rc, want $code: $(cat "$WORK/r.err")"
  grep -q -- "$pattern" "$WORK/r.err" || fail "$*: message: $(cat "$WORK/r.err")"
}

# --- devices of a served volume -------------------------------------------------
start_serve "$sock" "$vol"
qio -c "write -P 0x42 0 1M" -c flush >/dev/null || fail "write"
refused 1 "cache0.img: in use by another process (locked)" \
  "$TIERLAB_BIN" serve "$WORK/plain.json" --nbd "unix:$WORK/p.sock"
refused 1 "cache0.img: in use by another process (locked)" \
  "$TIERLAB_BIN" run --real -l "$WORK/plain.json" -p "$WORK/q.json"
refused 1 "cache0.img: in use by another process (locked)" \
  "$TIERLAB_BIN" create "$WORK/plain.json" --name other --dir "$WORK/other"
[[ ! -e "$WORK/other" ]] || fail "a failed create left $WORK/other"
qio -c "read -P 0x42 0 1M" >/dev/null || fail "data while refused"
stop_serve
[[ "$(sb_sum)" == "$sb_before" ]] || fail "superblock changed"

# --- the same devices, volume closed: the superblock says whose they are ---------
refused 1 "belongs to tierlab volume" \
  "$TIERLAB_BIN" serve "$WORK/plain.json" --nbd "unix:$WORK/p.sock"
refused 1 "belongs to tierlab volume" \
  "$TIERLAB_BIN" run --real -l "$WORK/plain.json" -p "$WORK/q.json"
refused 1 "belongs to tierlab volume" \
  "$TIERLAB_BIN" create "$WORK/plain.json" --name other --dir "$WORK/other"
[[ "$(sb_sum)" == "$sb_before" ]] || fail "superblock changed while closed"
"$TIERLAB_BIN" check "$vol" | grep -q "dirty       256 lines" || fail "dirty lines lost"
# One file named by two tiers is two writers too.
python3 - "$WORK/layout.json" "$WORK/twice.json" "$WORK/same.img" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["tiers"][0]["paths"] = [sys.argv[3]]
j["tiers"][1]["paths"] = [sys.argv[3]]
json.dump(j, open(sys.argv[2], "w"))
PY
refused 1 "same.img: in use by another process (locked)" \
  "$TIERLAB_BIN" run --real -l "$WORK/twice.json" -p "$WORK/q.json"

# --- serve's recovery window -----------------------------------------------------
TIERLAB_TEST_PAUSE_AT=volume-locked "$TIERLAB_BIN" serve "$vol" --nbd "unix:$sock" \
  >"$WORK/serve.out" 2>>"$WORK/serve.err" &
SERVE_PID=$!
wait_state "$SERVE_PID" T
[[ ! -e "$vol/serve.json" ]] || fail "serve.json before the server listens"
"$TIERLAB_BIN" status "$vol" >"$WORK/st.out" || fail "status"
grep -q "state       opening: pid $SERVE_PID (serve) is recovering it" "$WORK/st.out" ||
  fail "status in the recovery window: $(cat "$WORK/st.out")"
"$TIERLAB_BIN" status "$vol" --format json | python3 -c "
import json, sys
s = json.load(sys.stdin)
assert s['in_use'] and s['in_use_by'] == {'pid': $SERVE_PID, 'command': 'serve'}, s
assert s['served_by_pid'] == 0, s" || fail "status json in the recovery window"
refused 1 "is in use by pid $SERVE_PID (serve)" "$TIERLAB_BIN" destroy "$vol" --force
refused 1 "is in use by pid $SERVE_PID (serve)" "$TIERLAB_BIN" check "$vol" --repair
refused 1 "is in use by pid $SERVE_PID (serve)" "$TIERLAB_BIN" serve "$vol" --nbd "unix:$WORK/p.sock"
[[ -f "$vol/volume.json" && -f "$vol/cache0.img" ]] || fail "files gone in the window"
kill -CONT "$SERVE_PID"
for _ in $(seq 100); do [[ -S "$sock" ]] && break; sleep 0.05; done
qio -c "read -P 0x42 0 1M" >/dev/null || fail "data after the window"

# --- flush through a stopped server ----------------------------------------------
kill -STOP "$SERVE_PID"
wait_state "$SERVE_PID" T
start=$(date +%s)
refused 3 "the server (pid $SERVE_PID) is not making progress.*(the process is stopped)" \
  "$TIERLAB_BIN" flush "$vol" --stall-timeout 1
(($(date +%s) - start < 10)) || fail "flush took $(($(date +%s) - start)) s to give up"
kill -CONT "$SERVE_PID"
"$TIERLAB_BIN" flush "$vol" >/dev/null 2>&1 || fail "flush after SIGCONT"
stop_serve
"$TIERLAB_BIN" check "$vol" | grep -q "dirty       0 lines" || fail "not flushed"

# --- an offline flush's window ---------------------------------------------------
start_serve "$sock" "$vol"
qio -c "write -P 0x43 2M 64k" -c flush >/dev/null || fail "write 2"
stop_serve
TIERLAB_TEST_PAUSE_AT=volume-locked "$TIERLAB_BIN" flush "$vol" >"$WORK/fl.out" 2>&1 &
fpid=$!
extra_pids+=("$fpid")
wait_state "$fpid" T
"$TIERLAB_BIN" status "$vol" | grep -q "state       in use by pid $fpid (flush)" ||
  fail "status in the flush window: $("$TIERLAB_BIN" status "$vol")"
refused 1 "is in use by pid $fpid (flush)" "$TIERLAB_BIN" destroy "$vol" --force
refused 1 "is in use by pid $fpid (flush)" "$TIERLAB_BIN" check "$vol" --repair
refused 1 "is in use by pid $fpid (flush)" "$TIERLAB_BIN" serve "$vol" --nbd "unix:$sock"
refused 1 "is in use by pid $fpid (flush)" "$TIERLAB_BIN" flush "$vol"
kill -CONT "$fpid"
wait "$fpid" || fail "flush after the window: $(cat "$WORK/fl.out")"
"$TIERLAB_BIN" check "$vol" | grep -q "dirty       0 lines" || fail "offline flush"

# --- --nbd is checked before the recovery ----------------------------------------
# With the seam, a serve that got as far as the lock would stop there.
refused 2 "no directory $WORK/nodir" env TIERLAB_TEST_PAUSE_AT=volume-locked \
  "$TIERLAB_BIN" serve "$vol" --nbd "unix:$WORK/nodir/x.sock"
refused 2 "port must be" env TIERLAB_TEST_PAUSE_AT=volume-locked \
  "$TIERLAB_BIN" serve "$vol" --nbd "tcp:99999"

"$TIERLAB_BIN" destroy "$vol" >/dev/null || fail "destroy"
echo PASS
