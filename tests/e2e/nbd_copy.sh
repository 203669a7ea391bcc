#!/usr/bin/env bash
# nbdcopy a random file into a tierlab NBD export and back out: identical
# bytes. The file is larger than the cache (write-back, destage and eviction
# on the way), copied with several requests in flight, and read back after a
# server restart (the layout's files are kept; the server drains at exit).
source "$(dirname "$0")/lib/serve.bash"
need nbdcopy cmp head python3

write_layout "$WORK/layout.json"
sock="$WORK/nbd.sock"
uri="nbd+unix:///?socket=$sock"
head -c $((40 << 20)) /dev/urandom >"$WORK/in.bin"

start_serve "$sock" "$WORK/layout.json" --dir "$WORK/files"
nbdcopy --requests=16 "$WORK/in.bin" "$uri" || fail "nbdcopy in"
nbdcopy "$uri" "$WORK/out1.bin" || fail "nbdcopy out"
head -c $((40 << 20)) "$WORK/out1.bin" | cmp - "$WORK/in.bin" || fail "bytes differ (same server)"
stop_serve
[[ $(final_stat destage_ops) -gt 0 ]] || fail "no destage"

start_serve "$sock" "$WORK/layout.json" --dir "$WORK/files"
nbdcopy "$uri" "$WORK/out2.bin" || fail "nbdcopy out after restart"
stop_serve
head -c $((40 << 20)) "$WORK/out2.bin" | cmp - "$WORK/in.bin" || fail "bytes differ after restart"
echo PASS
