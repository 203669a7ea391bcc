#!/usr/bin/env bash
# Block status end to end, with the real clients:
#   1. a layout on sparse files (a stripe of two): `nbdinfo --map` and
#      `qemu-img map` report the written ranges as data and the rest as
#      holes; `nbdcopy --sparse=0` (which does not look for zeros in what it
#      reads, so only block status can keep its output sparse) and `qemu-img
#      convert` copy it byte for byte into sparse files;
#   2. a persistent write-back volume whose data is still dirty in the cache
#      (the origin file is all holes): the map reports it as data, the copies
#      equal the source, and the server served only a few reads for them
#      (holes skipped); the same after a restart (recovered dirty lines).
source "$(dirname "$0")/lib/serve.bash"
need nbdinfo nbdcopy qemu-img qemu-io python3 cmp

qio() { qemu-io --image-opts "driver=nbd,server.type=unix,server.path=$1" "${@:2}" >/dev/null; }
allocated() { echo $(($(stat -c '%b * %B' "$1"))); }
# check_map SOCKET SIZE DATA_RANGES...: nbdinfo's and qemu-img's maps of the
# export are exactly the given "offset:length" data ranges, holes elsewhere.
check_map() {
  local uri="nbd+unix:///?socket=$1" size=$2
  shift 2
  nbdinfo --map --json "$uri" >"$WORK/nbdinfo.json" || fail "nbdinfo --map"
  qemu-img map --output=json -f raw "$uri" >"$WORK/qemu-map.json" || fail "qemu-img map"
  python3 - "$WORK/nbdinfo.json" "$WORK/qemu-map.json" "$size" "$@" <<'PY' || fail "maps differ"
import json, sys
nbdinfo, qemu, size, want = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
data = [tuple(int(x) for x in r.split(":")) for r in want]
def expect():
    out, pos = [], 0
    for off, ln in data:
        if off > pos: out.append((pos, off - pos, False))
        out.append((off, ln, True))
        pos = off + ln
    if pos < size: out.append((pos, size - pos, False))
    return out
def merge(ext):
    out = []
    for off, ln, d in ext:
        if out and out[-1][2] == d and out[-1][0] + out[-1][1] == off:
            out[-1] = (out[-1][0], out[-1][1] + ln, d)
        else:
            out.append((off, ln, d))
    return out
got_nbd = merge([(e["offset"], e["length"], e["type"] & 1 == 0) for e in json.load(open(nbdinfo))])
got_qemu = merge([(e["start"], e["length"], e["data"]) for e in json.load(open(qemu))])
for name, got in (("nbdinfo", got_nbd), ("qemu-img", got_qemu)):
    if got != expect():
        sys.exit(f"{name} map {got} != expected {expect()}")
PY
}
# check_copies SOCKET SOURCE_IMAGE: both copies equal the source and are sparse.
check_copies() {
  local uri="nbd+unix:///?socket=$1" src=$2
  rm -f "$WORK/copy1.img" "$WORK/copy2.img"
  truncate -s "$(stat -c %s "$src")" "$WORK/copy1.img"
  nbdcopy --sparse=0 "$uri" "$WORK/copy1.img" || fail "nbdcopy"
  qemu-img convert -f raw -O raw "$uri" "$WORK/copy2.img" || fail "qemu-img convert"
  cmp "$src" "$WORK/copy1.img" || fail "nbdcopy copy differs from the source"
  cmp "$src" "$WORK/copy2.img" || fail "qemu-img convert copy differs from the source"
  local limit=$(($(allocated "$src") + (1 << 20)))
  [[ $(allocated "$WORK/copy1.img") -le $limit ]] || fail "nbdcopy wrote the holes: $(allocated "$WORK/copy1.img") bytes"
  [[ $(allocated "$WORK/copy2.img") -le $limit ]] || fail "qemu-img wrote the holes: $(allocated "$WORK/copy2.img") bytes"
}
# The expected image: a sparse file with the same patterns.
make_source() {  # PATH SIZE (OFFSET LENGTH BYTE)...
  local path=$1 size=$2
  shift 2
  python3 - "$path" "$size" "$@" <<'PY'
import sys
path, size, rest = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
with open(path, "wb") as f:
    f.truncate(size)
    for i in range(0, len(rest), 3):
        off, ln, byte = int(rest[i]), int(rest[i + 1]), int(rest[i + 2], 16)
        f.seek(off)
        f.write(bytes([byte]) * ln)
PY
}

# 1. A layout: two sparse 256 MiB files striped.
cat >"$WORK/layout.json" <<'JSON'
{"name": "map", "tiers": [{"name": "capacity", "preset": "hdd-7200", "count": 2,
                           "capacity": "256m", "chunk": "64k"}]}
JSON
sock="$WORK/map.sock"
start_serve "$sock" "$WORK/layout.json" --dir "$WORK/files"
qio "$sock" -c "write -P 0x11 0 64k" -c "write -P 0x22 100M 1M" -c "write -P 0x33 500M 128k" \
  -c flush || fail "qemu-io write (layout)"
check_map "$sock" $((512 << 20)) 0:65536 104857600:1048576 524288000:131072
make_source "$WORK/layout-src.img" $((512 << 20)) 0 65536 11 104857600 1048576 22 524288000 131072 33
check_copies "$sock" "$WORK/layout-src.img"
stop_serve

# 2. A volume, its data dirty in the cache (8 MiB cache, 20% watermark).
write_layout "$WORK/vol.json" mapvol
"$TIERLAB_BIN" create "$WORK/vol.json" --name mapvol --dir "$WORK/vol" >/dev/null || fail "create"
sock="$WORK/vol/nbd.sock"
start_serve "$sock" "$WORK/vol"
qio "$sock" -c "write -P 0x44 4k 12k" -c "write -P 0x55 40M 1M" -c flush || fail "qemu-io write (volume)"
check_map "$sock" $((64 << 20)) 4096:12288 41943040:1048576
make_source "$WORK/vol-src.img" $((64 << 20)) 4096 12288 44 41943040 1048576 55
check_copies "$sock" "$WORK/vol-src.img"
stop_serve
[[ $(final_stat dirty_lines) -eq 259 ]] || fail "dirty lines: $(final_stat dirty_lines) (the data left the cache)"
reads=$(final_stat read_requests)
# Two copies of two data ranges (12 KiB and 1 MiB) take a few reads each;
# reading the 64 MiB whole would take 256 of nbdcopy's 256 KiB requests and
# 32 of qemu-img's 2 MiB ones.
[[ $reads -le 24 ]] || fail "the copies made $reads reads: holes not skipped"
start_serve "$sock" "$WORK/vol"
check_map "$sock" $((64 << 20)) 4096:12288 41943040:1048576
check_copies "$sock" "$WORK/vol-src.img"
stop_serve
echo PASS
