#!/usr/bin/env bash
# qemu-io against a tierlab NBD export: write patterns (some with FUA),
# flush, read them back with pattern checks (-P), including after the data
# was pushed out of the cache by a larger write and after a restart.
source "$(dirname "$0")/lib/serve.bash"
need qemu-io python3

write_layout "$WORK/layout.json"
sock="$WORK/nbd.sock"
qio() { qemu-io --image-opts "driver=nbd,server.type=unix,server.path=$sock" "$@"; }

start_serve "$sock" "$WORK/layout.json" --dir "$WORK/files"
qio -c "write -P 0xa5 0 1M" -c "write -P 0x5a 1M 64k" -c "write -f -P 0x3c 2M 4k" \
  -c "write -P 0x77 10M 12k" -c flush >"$WORK/w.out" || fail "qemu-io write"
qio -c "read -P 0xa5 0 1M" -c "read -P 0x5a 1M 64k" -c "read -P 0x3c 2M 4k" \
  -c "read -P 0x77 10M 12k" -c "read -P 0 20M 64k" >"$WORK/r1.out" || fail "qemu-io read"
grep -q "Pattern verification failed" "$WORK/r1.out" && fail "pattern mismatch: $(cat "$WORK/r1.out")"
# 24 MiB more than the 8 MiB cache holds: the patterns above are evicted.
qio -c "write -P 0x11 32M 24M" -c flush >/dev/null || fail "qemu-io big write"
qio -c "read -P 0xa5 0 1M" -c "read -P 0x3c 2M 4k" -c "read -P 0x11 32M 24M" \
  >"$WORK/r2.out" || fail "qemu-io read after eviction"
grep -q "Pattern verification failed" "$WORK/r2.out" && fail "pattern mismatch after eviction"
stop_serve
start_serve "$sock" "$WORK/layout.json" --dir "$WORK/files"
qio -c "read -P 0x5a 1M 64k" -c "read -P 0x77 10M 12k" -c "read -P 0x11 32M 24M" \
  >"$WORK/r3.out" || fail "qemu-io read after restart"
grep -q "Pattern verification failed" "$WORK/r3.out" && fail "pattern mismatch after restart"
stop_serve
echo PASS
