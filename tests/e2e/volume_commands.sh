#!/usr/bin/env bash
# Volume management end to end: create, status (table and JSON), serve with
# dirty lines left, destroy refusing a dirty volume, flush through the
# running server (SIGUSR1), check detecting a corrupted superblock and a
# corrupted checkpoint, check --repair, destroy.
source "$(dirname "$0")/lib/serve.bash"
need python3 qemu-io

write_layout "$WORK/layout.json" vc
vol="$WORK/vol"
"$TIERLAB_BIN" create "$WORK/layout.json" --name vc --dir "$vol" >"$WORK/create.out" || fail "create"
[[ -f "$vol/volume.json" && -f "$vol/cache0.img" && -f "$vol/capacity0.img" ]] || fail "create: files"
"$TIERLAB_BIN" create "$WORK/layout.json" --name vc --dir "$vol" 2>/dev/null && fail "create over an existing volume"
"$TIERLAB_BIN" check "$vol" >/dev/null || fail "check of a fresh volume"

sock="$vol/nbd.sock"
start_serve "$sock" "$vol"
qio() { qemu-io --image-opts "driver=nbd,server.type=unix,server.path=$sock" "$@"; }
# 1 MiB of dirty data, below the 20% high watermark of the 8 MiB cache: it stays dirty.
qio -c "write -P 0x42 0 1M" -c flush >/dev/null || fail "write"
sleep 1.2  # one serve.json update
"$TIERLAB_BIN" status "$vol" --format json >"$WORK/status.json" || fail "status json"
python3 - "$WORK/status.json" <<'PY' || fail "status json content"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["name"] == "vc" and s["served_by_pid"] > 0, s
assert s["metadata"]["committed_dirty_lines"] == 256, s["metadata"]
assert s["live"]["cache"]["dirty_lines"] == 256, s["live"]["cache"]
PY
"$TIERLAB_BIN" status "$vol" | grep -q "served by pid" || fail "status table"
"$TIERLAB_BIN" destroy "$vol" 2>/dev/null && fail "destroy of a served volume"
"$TIERLAB_BIN" flush "$vol" >/dev/null 2>&1 || fail "flush through the server"
qio -c "read -P 0x42 0 1M" >"$WORK/r.out" || fail "read after flush"
stop_serve
"$TIERLAB_BIN" check "$vol" | grep -q "dirty       0 lines" || fail "dirty lines after flush"

# Dirty again, closed cleanly: destroy must refuse without --force.
start_serve "$sock" "$vol"
qio -c "write -P 0x43 4M 64k" -c flush >/dev/null || fail "write 2"
stop_serve
"$TIERLAB_BIN" destroy "$vol" 2>"$WORK/destroy.err" && fail "destroy of a dirty volume"
grep -q "dirty lines" "$WORK/destroy.err" || fail "destroy message: $(cat "$WORK/destroy.err")"

# Corrupt one checkpoint copy: the other is used, a note, still consistent.
cp "$vol/cache0.img" "$WORK/cache0.bak"
python3 - "$vol/cache0.img" <<'PY'
import struct, sys
f = open(sys.argv[1], "r+b")
f.seek(64 * 1024 + 4096 + 8)  # inside checkpoint copy A's body
b = f.read(1); f.seek(-1, 1); f.write(bytes([b[0] ^ 0xFF]))
PY
"$TIERLAB_BIN" check "$vol" >"$WORK/check1.out" || true
grep -q "A invalid\|B invalid" "$WORK/check1.out" || fail "check did not see the bad checkpoint: $(cat "$WORK/check1.out")"
# Corrupt the superblock: check fails (exit 1), serve refuses.
python3 - "$vol/cache0.img" <<'PY'
import sys
f = open(sys.argv[1], "r+b")
f.seek(200); f.write(b"\xde\xad")
PY
rc=0; "$TIERLAB_BIN" check "$vol" >"$WORK/check2.out" || rc=$?
[[ $rc -eq 1 ]] || fail "check exit $rc on a bad superblock"
grep -q "checksum" "$WORK/check2.out" || fail "check message: $(cat "$WORK/check2.out")"
"$TIERLAB_BIN" serve "$vol" --nbd "unix:$sock" 2>/dev/null && fail "serve of a volume with a bad superblock"
# Restore the device; --repair on a consistent volume changes nothing.
cp "$WORK/cache0.bak" "$vol/cache0.img"
"$TIERLAB_BIN" check "$vol" --repair >/dev/null || fail "check after restore"

start_serve "$sock" "$vol"
qio -c "read -P 0x43 4M 64k" -c "read -P 0x42 0 1M" >"$WORK/r2.out" || fail "data after reopen"
stop_serve
"$TIERLAB_BIN" destroy "$vol" --force >/dev/null || fail "destroy --force"
[[ ! -e "$vol" ]] || fail "volume dir left behind"
echo PASS
