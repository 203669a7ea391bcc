#!/usr/bin/env bash
# Damage below the cache, found and repaired offline, on a volume whose cache
# spans two devices:
#   * device 0's superblock destroyed: check fails (exit 1), serve refuses,
#     check --repair restores it from device 1's copy, the data is intact;
#   * a lost write and a torn write on the cache devices (dirty 4 KiB lines
#     whose data is replaced, wholly or half, after a clean close): check
#     fails naming each line and volume offset, serve refuses, check --repair
#     reports the lines as LOST (exit 1), then the volume checks clean and
#     serves the origin's older data for them and the written data elsewhere.
source "$(dirname "$0")/lib/serve.bash"
need python3 qemu-io

write_layout "$WORK/layout.json" vr 2
vol="$WORK/vol"
"$TIERLAB_BIN" create "$WORK/layout.json" --name vr --dir "$vol" >/dev/null || fail "create"
[[ -f "$vol/cache0.img" && -f "$vol/cache1.img" ]] || fail "create: two cache devices"
sock="$vol/nbd.sock"
qio() { qemu-io --image-opts "driver=nbd,server.type=unix,server.path=$sock" "$@"; }

# Dirty lines (well below the 20% high watermark: no destage), closed cleanly.
start_serve "$sock" "$vol"
qio -c "write -P 0x5a 1M 4k" -c "write -P 0x6b 2M 4k" -c "write -P 0x7c 3M 64k" -c flush \
  >/dev/null || fail "write"
stop_serve
"$TIERLAB_BIN" check "$vol" >"$WORK/check0.out" || { cat "$WORK/check0.out"; fail "check of the clean volume"; }
grep -q "shutdown    clean" "$WORK/check0.out" || fail "check: not a clean shutdown: $(cat "$WORK/check0.out")"
grep -q "data        18 dirty lines read, 18 sectors checked, 0 without a checksum, 0 bad" \
  "$WORK/check0.out" || fail "check data line: $(cat "$WORK/check0.out")"

# --- 1. Superblock of device 0 destroyed; device 1 holds a copy.
cp "$vol/cache0.img" "$WORK/cache0.bak"
python3 - "$vol/cache0.img" <<'PY'
f = open(__import__("sys").argv[1], "r+b")
f.seek(0); f.write(b"\0" * 4096)
PY
rc=0; "$TIERLAB_BIN" check "$vol" >"$WORK/check1.out" || rc=$?
[[ $rc -eq 1 ]] || fail "check exit $rc on a destroyed superblock"
grep -q "bad magic" "$WORK/check1.out" || fail "check message: $(cat "$WORK/check1.out")"
"$TIERLAB_BIN" serve "$vol" --nbd "unix:$sock" 2>/dev/null && fail "serve of a volume without superblock"
"$TIERLAB_BIN" check "$vol" --repair >"$WORK/repair1.out" || { cat "$WORK/repair1.out"; fail "repair of the superblock"; }
grep -q "superblock of .*cache0.img restored from .*cache1.img" "$WORK/repair1.out" ||
  fail "repair message: $(cat "$WORK/repair1.out")"
cmp -s <(head -c 65536 "$vol/cache0.img") <(head -c 65536 "$WORK/cache0.bak") ||
  fail "restored superblock differs from the original"
"$TIERLAB_BIN" check "$vol" >/dev/null || fail "check after the superblock repair"

# --- 2. A lost write and a torn write on the cache devices.
python3 - "$vol" <<'PY' || fail "could not find the cached lines"
import json, os, sys
vol = sys.argv[1]
reserve = json.load(open(os.path.join(vol, "volume.json")))["metadata_reserve"]
def find(pattern):
    for dev in ("cache0.img", "cache1.img"):
        data = open(os.path.join(vol, dev), "rb").read()
        for off in range(reserve, len(data), 4096):
            if data[off:off + 4096] == bytes([pattern]) * 4096:
                return dev, off
    raise SystemExit("pattern %#x not on a cache device" % pattern)
dev, off = find(0x5a)  # volume offset 1M: lost (the device still holds zeros)
with open(os.path.join(vol, dev), "r+b") as f:
    f.seek(off); f.write(bytes(4096))
dev, off = find(0x6b)  # volume offset 2M: torn (only the first half reached the device)
with open(os.path.join(vol, dev), "r+b") as f:
    f.seek(off + 2048); f.write(bytes(2048))
PY
rc=0; "$TIERLAB_BIN" check "$vol" >"$WORK/check2.out" || rc=$?
[[ $rc -eq 1 ]] || fail "check exit $rc with a lost and a torn write: $(cat "$WORK/check2.out")"
grep -q "line 256 (volume offset 1048576, .*lost or torn write" "$WORK/check2.out" ||
  fail "check did not name the lost write: $(cat "$WORK/check2.out")"
grep -q "line 512 (volume offset 2097152, .*lost or torn write" "$WORK/check2.out" ||
  fail "check did not name the torn write: $(cat "$WORK/check2.out")"
grep -q "2 bad" "$WORK/check2.out" || fail "check data summary: $(cat "$WORK/check2.out")"
"$TIERLAB_BIN" serve "$vol" --nbd "unix:$sock" 2>"$WORK/serve_refused.err" &&
  fail "serve of a volume whose dirty data fails its checksums"
grep -q "fail their data checksum" "$WORK/serve_refused.err" ||
  fail "serve message: $(cat "$WORK/serve_refused.err")"
rc=0; "$TIERLAB_BIN" check "$vol" --repair >"$WORK/repair2.out" || rc=$?
[[ $rc -eq 1 ]] || fail "check --repair exit $rc with lost data (must stay 1)"
[[ $(grep -c "^LOST: line" "$WORK/repair2.out") -eq 2 ]] || fail "repair: $(cat "$WORK/repair2.out")"
grep -q "repaired, 2 dirty line(s) lost" "$WORK/repair2.out" || fail "repair: $(cat "$WORK/repair2.out")"
"$TIERLAB_BIN" check "$vol" >"$WORK/check3.out" || { cat "$WORK/check3.out"; fail "check after repair"; }
grep -q "dirty       16 lines" "$WORK/check3.out" || fail "dirty lines after repair: $(cat "$WORK/check3.out")"

# The dropped lines read as the origin's (never written: zeros), the rest as written.
start_serve "$sock" "$vol"
qio -c "read -P 0 1M 4k" -c "read -P 0 2M 4k" -c "read -P 0x7c 3M 64k" >"$WORK/r.out" ||
  fail "data after repair: $(cat "$WORK/r.out")"
grep -q "Pattern verification failed" "$WORK/r.out" && fail "data after repair: $(cat "$WORK/r.out")"
stop_serve
"$TIERLAB_BIN" destroy "$vol" --force >/dev/null || fail "destroy"
echo PASS
