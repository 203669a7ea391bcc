# Helpers for the NBD end-to-end scripts (sourced; not a test itself).
# TIERLAB_BIN is the CLI. Each script gets a private work dir, removed at exit
# together with any server it started.

set -euo pipefail

TIERLAB_BIN="${TIERLAB_BIN:?TIERLAB_BIN must point at the tierlab binary}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tierlab-e2e.XXXXXX")"
SERVE_PID=""

cleanup() {
  if [[ -n "$SERVE_PID" ]] && kill -0 "$SERVE_PID" 2>/dev/null; then
    kill -KILL "$SERVE_PID" 2>/dev/null || true
    wait "$SERVE_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# need TOOL...: exit 77 (skipped) if a client binary is missing.
need() {
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not installed (scripts/bootstrap.sh)"; exit 77; }
  done
}

fail() {
  echo "FAIL: $*" >&2
  if [[ -f "$WORK/serve.err" ]]; then
    echo "--- serve stderr:" >&2
    tail -20 "$WORK/serve.err" >&2
  fi
  exit 1
}

# A small write-back cached layout on files: cache capacity 8m of 4k lines,
# low watermarks, so a few tens of MiB of I/O make it destage and evict.
# CACHE_DEVICES (default 1) spreads the 16m of cache tier over that many
# devices (slot s on device s mod N; device 1 holds a copy of the superblock).
write_layout() {  # PATH [NAME] [CACHE_DEVICES]
  local n=${3:-1}
  cat >"$1" <<JSON
{
  "name": "${2:-e2e}",
  "tiers": [
    {"name": "cache", "preset": "ssd-hk4e", "count": $n, "capacity": "$((16 / n))m"},
    {"name": "capacity", "preset": "hdd-7200", "count": 1, "capacity": "64m"}
  ],
  "cache": {"tier": "cache", "write": "writeback", "line_size": "4k", "capacity": "8m",
            "high_watermark": 20, "low_watermark": 10}
}
JSON
}

# start_serve SOCKET ARGS...: runs `tierlab serve ARGS --nbd unix:SOCKET` in
# the background and waits for the socket. Sets SERVE_PID.
start_serve() {
  local sock="$1"
  shift
  "$TIERLAB_BIN" serve "$@" --nbd "unix:$sock" >>"$WORK/serve.out" 2>>"$WORK/serve.err" &
  SERVE_PID=$!
  for _ in $(seq 100); do
    [[ -S "$sock" ]] && return 0
    kill -0 "$SERVE_PID" 2>/dev/null || fail "serve exited at startup"
    sleep 0.05
  done
  fail "serve did not create $sock"
}

# stop_serve: SIGINT, wait; fails unless the server exits 0.
stop_serve() {
  kill -INT "$SERVE_PID"
  local rc=0
  wait "$SERVE_PID" || rc=$?
  SERVE_PID=""
  [[ $rc -eq 0 ]] || fail "serve exited with $rc after SIGINT"
}

# final_stat KEY: a counter from the last "final cache stats" line.
final_stat() {
  grep 'final cache stats' "$WORK/serve.err" | tail -1 | sed 's/^[^{]*//' |
    python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"
}
