#!/usr/bin/env bash
# The NBD server's limits against misbehaving clients (tests/e2e/lib/
# nbd_limits_client.py), with short timeouts:
#   1. 64 connections that never send a byte take every slot: a 65th client
#      is refused with a log line; the silent ones are dropped at the option
#      timeout (one line each, naming the peer), then clients are served.
#   2. 60 connections each send four 32 MiB reads and read no reply, on a
#      plain layout and on a cached one: the server's peak RSS stays within
#      the 256 MiB buffer budget plus the documented overhead, the stallers
#      are dropped (one line each), a client is served afterwards, and the
#      memory is returned once they are gone.
source "$(dirname "$0")/lib/serve.bash"
need python3

client="$(dirname "$0")/lib/nbd_limits_client.py"
write_layout "$WORK/layout.json"
sock="$WORK/nbd.sock"
# Under AddressSanitizer each byte touched has an eighth of a byte of
# shadow, whose pages stay resident once the memory is freed: the memory
# returned is then checked against that allowance too.
shadow_of_peak=0
if ldd "$TIERLAB_BIN" 2>/dev/null | grep -q libasan; then shadow_of_peak=1; fi
rss() { awk -v k="$1:" '$1 == k {print $2 * 1024}' "/proc/$SERVE_PID/status"; }
mib() { echo $(($1 >> 20)); }

# Bad limits: one line naming the option, exit 2, nothing created.
bad_limit() {
  local rc=0
  "$TIERLAB_BIN" serve "$WORK/layout.json" --dir "$WORK/bad" --nbd "unix:$sock" "$@" \
    2>"$WORK/bad.err" || rc=$?
  [[ $rc -eq 2 ]] || fail "serve $* exited $rc, want 2"
  grep -q -- "$1" "$WORK/bad.err" || fail "serve $*: error names no option: $(cat "$WORK/bad.err")"
  [[ ! -e "$WORK/bad" ]] || fail "serve $* created files before refusing"
}
bad_limit --nbd-memory 16m
bad_limit --nbd-memory lots
bad_limit --stall-timeout -1
bad_limit --max-connections 0

start_serve "$sock" "$WORK/layout.json" --dir "$WORK/files" --max-connections 64 \
  --handshake-timeout 3 --option-timeout 1 --stall-timeout 2 --nbd-memory 256m
python3 "$client" probe "$sock" 5 >/dev/null || fail "first probe"

# 1. Idle connections.
python3 "$client" idle "$sock" 64 2.5 >"$WORK/idle.out" &
idle_pid=$!
sleep 0.4
python3 "$client" probe "$sock" 2 >"$WORK/probe-locked.out" &&
  fail "a 65th client was served while 64 held every slot"
wait "$idle_pid" || fail "idle client"
grep -q "closed by the server: 64" "$WORK/idle.out" || fail "silent clients not dropped: $(cat "$WORK/idle.out")"
python3 "$client" probe "$sock" 5 >/dev/null || fail "probe after the silent clients left"
refused=$(grep -c "refused: 64 connections open (limit 64)" "$WORK/serve.err" || true)
dropped=$(grep -c "dropped: nothing received for 1 s during the handshake" "$WORK/serve.err" || true)
[[ $refused -ge 1 ]] || fail "no refusal line"
[[ $dropped -eq 64 ]] || fail "$dropped drop lines for 64 silent clients"
grep "refused:" "$WORK/serve.err" | head -1 | grep -q "nbd: unix pid [0-9]* uid [0-9]*: refused" ||
  fail "refusal line names no peer: $(grep refused: "$WORK/serve.err" | head -1)"

stop_serve

# 2. Unread 32 MiB reads, on a plain layout (one file) and on the cached one.
#    Bound: the 256 MiB budget, plus 64 KiB of input buffer per connection (4
#    MiB for 64), plus 28 MiB for the allocator, the engine and the kernel's
#    accounting of a busy process (docs/NBD.md); the cache target also holds
#    a bounce buffer per promoting read miss, as large as the miss (up to the
#    budget again: the server admits no more than the budget in flight).
cat >"$WORK/plain.json" <<'JSON'
{"name": "plain", "tiers": [{"name": "capacity", "preset": "hdd-7200", "count": 1, "capacity": "64m"}]}
JSON
unread_case() {  # LAYOUT STACK_OVERHEAD_MIB
  local layout=$1 stack=$2
  : >"$WORK/serve.err"
  start_serve "$sock" "$layout" --dir "$WORK/files" --stall-timeout 2 --nbd-memory 256m
  python3 "$client" probe "$sock" 5 >/dev/null || fail "probe before the stallers"
  local base peak after stalls
  base=$(rss VmRSS)
  python3 "$client" unread "$sock" 60 4 $((32 << 20)) 4 >"$WORK/unread.out" || fail "unread client"
  peak=$(rss VmHWM)
  # The server sees the clients leave on its next turns; on a loaded machine
  # that can take a while, so wait (up to 10 s) for the memory to come back.
  for _ in $(seq 50); do
    after=$(rss VmRSS)
    [[ $((after - base)) -le $(((16 << 20) + shadow_of_peak * (peak - base) / 8)) ]] && break
    sleep 0.2
  done
  python3 "$client" probe "$sock" 5 >/dev/null || fail "probe after the stallers left"
  stalls=$(grep -c "dropped: read no reply for 2 s" "$WORK/serve.err" || true)
  echo "$(basename "$layout"): RSS before $(mib "$base") MiB, peak $(mib "$peak") MiB," \
    "after $(mib "$after") MiB; $stalls stallers dropped; $(cat "$WORK/unread.out")"
  [[ $((peak - base)) -le $(((256 + 4 + 28 + stack) << 20)) ]] ||
    fail "peak RSS $(mib "$peak") MiB over the bound ($(mib "$base") MiB before)"
  [[ $((after - base)) -le $(((16 << 20) + shadow_of_peak * (peak - base) / 8)) ]] ||
    fail "RSS after the clients left: $(mib "$after") MiB ($(mib "$base") MiB before)"
  [[ $stalls -ge 4 ]] || fail "$stalls stall drops"
  stop_serve
}
unread_case "$WORK/plain.json" 0
unread_case "$WORK/layout.json" 256
echo PASS
