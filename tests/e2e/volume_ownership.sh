#!/usr/bin/env bash
# What a volume owns (docs/DURABILITY.md, "What a volume owns"):
#   * volume.json names the files it created relative to its directory;
#   * a copied directory (cp -a) is detected as a copy and refused, and
#     destroying it removes the copy's files, never the original's;
#   * a hand-edited volume.json cannot make destroy remove another file;
#   * a moved directory opens, and its new place is recorded;
#   * `reidentify` gives a copy its own UUID: both then serve side by side;
#   * a truncated device is an error, never grown back (check and serve);
#   * a directory where a device file belongs: check fails, serve exits 2
#     naming it;
#   * destroy that cannot remove the files (permission denied) says so,
#     exits 3 and keeps volume.json.
source "$(dirname "$0")/lib/serve.bash"
need python3 qemu-io sha256sum

write_layout "$WORK/layout.json" own
vol="$WORK/vol"
sock="$WORK/nbd.sock"
qio() { qemu-io --image-opts "driver=nbd,server.type=unix,server.path=$sock" "$@"; }
"$TIERLAB_BIN" create "$WORK/layout.json" --name own --dir "$vol" >/dev/null || fail "create"
python3 - "$vol/volume.json" <<'PY' || fail "volume.json paths"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["created_files"] == ["cache0.img", "capacity0.img"], j["created_files"]
assert [t["paths"] for t in j["layout"]["tiers"]] == [["cache0.img"], ["capacity0.img"]], j["layout"]
PY

# Data on the capacity tier and 1 MiB left dirty in the cache, closed cleanly.
start_serve "$sock" "$vol"
qio -c "write -P 0x41 8M 1M" -c flush >/dev/null || fail "write 1"
stop_serve
"$TIERLAB_BIN" flush "$vol" >/dev/null 2>&1 || fail "offline flush"
start_serve "$sock" "$vol"
qio -c "write -P 0x42 0 1M" -c flush >/dev/null || fail "write 2"
stop_serve
"$TIERLAB_BIN" flush "$vol" >/dev/null 2>&1 || fail "offline flush 2"
sums() { (cd "$1" && sha256sum cache0.img capacity0.img); }
sums "$vol" >"$WORK/orig.sum"

# --- a copy: refused for use, destroyed without touching the original -------
cp -a "$vol" "$WORK/copy"
rc=0; "$TIERLAB_BIN" serve "$WORK/copy" --nbd "unix:$WORK/c.sock" 2>"$WORK/copy.err" || rc=$?
[[ $rc -eq 1 ]] || fail "serve of a copy: exit $rc, want 1"
grep -q "is a copy of the volume in $vol" "$WORK/copy.err" || fail "copy message: $(cat "$WORK/copy.err")"
grep -q "tierlab reidentify" "$WORK/copy.err" || fail "copy message says how: $(cat "$WORK/copy.err")"
"$TIERLAB_BIN" status "$WORK/copy" | grep -q "COPY of the volume in $vol" || fail "status of a copy"
"$TIERLAB_BIN" check --repair "$WORK/copy" >/dev/null 2>&1 && fail "check --repair of a copy"
"$TIERLAB_BIN" destroy "$WORK/copy" >"$WORK/destroy.out" || fail "destroy of a clean copy"
[[ ! -e "$WORK/copy" ]] || fail "destroy left the copy: $(ls "$WORK/copy")"
sums "$vol" | cmp -s - "$WORK/orig.sum" || fail "destroying the copy changed the original's files"

# --- a hand-edited volume.json ----------------------------------------------
"$TIERLAB_BIN" create "$WORK/layout.json" --name edit --dir "$WORK/edit" >/dev/null || fail "create edit"
echo precious >"$WORK/victim"
python3 - "$WORK/edit/volume.json" "$WORK/victim" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["created_files"].append(sys.argv[2])
json.dump(j, open(sys.argv[1], "w"))
PY
"$TIERLAB_BIN" destroy "$WORK/edit" >"$WORK/edit.out" || fail "destroy edit: $(cat "$WORK/edit.out")"
grep -q "kept $WORK/victim (outside the volume directory, no superblock of this volume)" \
  "$WORK/edit.out" || fail "destroy edit output: $(cat "$WORK/edit.out")"
[[ "$(cat "$WORK/victim")" == precious ]] || fail "destroy removed a file it did not own"
"$TIERLAB_BIN" create "$WORK/layout.json" --name edit --dir "$WORK/edit" >/dev/null || fail "create edit 2"
python3 - "$WORK/edit/volume.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
j["created_files"].append("../victim")
json.dump(j, open(sys.argv[1], "w"))
PY
rc=0; "$TIERLAB_BIN" destroy "$WORK/edit" 2>"$WORK/edit.err" || rc=$?
[[ $rc -eq 2 ]] || fail "destroy with ../victim: exit $rc, want 2"
grep -q 'volume.json: created_files\[2\]: "../victim" is outside the volume directory' \
  "$WORK/edit.err" || fail "escape message: $(cat "$WORK/edit.err")"
[[ -e "$WORK/victim" ]] || fail "victim removed"

# --- a moved directory opens; the record follows --------------------------------
mv "$vol" "$WORK/moved"
vol="$WORK/moved"
"$TIERLAB_BIN" status "$vol" | grep -q "moved from $WORK/vol" || fail "status of a moved volume"
"$TIERLAB_BIN" check "$vol" >/dev/null || fail "check of a moved volume"
start_serve "$sock" "$vol"
qio -c "read -P 0x42 0 1M" -c "read -P 0x41 8M 1M" >/dev/null || fail "data after the move"
stop_serve
grep -q "moved from $WORK/vol" "$WORK/serve.err" || fail "serve did not note the move"
python3 - "$vol/volume.json" "$vol" <<'PY' || fail "place not recorded"
import json, sys
assert json.load(open(sys.argv[1]))["place"]["dir"] == sys.argv[2]
PY

# --- reidentify: a copy of its own, served beside the original ------------------
cp -a "$vol" "$WORK/twin"
"$TIERLAB_BIN" reidentify "$WORK/twin" --name twin >"$WORK/reid.out" || fail "reidentify"
new_uuid=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['uuid'])" "$WORK/twin/volume.json")
old_uuid=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['uuid'])" "$vol/volume.json")
[[ "$new_uuid" != "$old_uuid" ]] || fail "reidentify kept the uuid"
grep -q "new uuid $new_uuid (was $old_uuid)" "$WORK/reid.out" || fail "reidentify output: $(cat "$WORK/reid.out")"
"$TIERLAB_BIN" check "$WORK/twin" >"$WORK/twin.check" || fail "check twin: $(cat "$WORK/twin.check")"
grep -q "superblock  ok (uuid $new_uuid" "$WORK/twin.check" || fail "twin superblock: $(cat "$WORK/twin.check")"
grep -q "checkpoint  A ok, B ok" "$WORK/twin.check" || fail "twin checkpoints: $(cat "$WORK/twin.check")"
start_serve "$sock" "$vol"
pid1=$SERVE_PID
tsock="$WORK/twin.sock"
"$TIERLAB_BIN" serve "$WORK/twin" --nbd "unix:$tsock" >/dev/null 2>"$WORK/twin.err" &
pid2=$!
for _ in $(seq 100); do [[ -S "$tsock" ]] && break; sleep 0.05; done
[[ -S "$tsock" ]] || fail "twin did not serve: $(cat "$WORK/twin.err")"
tqio() { qemu-io --image-opts "driver=nbd,server.type=unix,server.path=$tsock" "$@"; }
qio -c "write -P 0x51 2M 64k" -c flush >/dev/null || fail "write original"
tqio -c "read -P 0x42 0 1M" -c "write -P 0x52 2M 64k" -c flush >/dev/null || fail "twin data"
kill -INT "$pid2"; wait "$pid2" || fail "twin serve exit"
qio -c "read -P 0x51 2M 64k" >/dev/null || fail "original lost its write beside the twin"
stop_serve
start_serve "$tsock" "$WORK/twin"
tqio -c "read -P 0x52 2M 64k" >/dev/null || fail "twin lost its write"
stop_serve
"$TIERLAB_BIN" check "$vol" >/dev/null || fail "check original after twin"

# --- a truncated device is an error, never grown back ---------------------------
"$TIERLAB_BIN" flush "$WORK/twin" >/dev/null 2>&1 || fail "flush twin"
truncate -s 32m "$WORK/twin/capacity0.img"
rc=0; "$TIERLAB_BIN" check "$WORK/twin" >"$WORK/trunc.check" || rc=$?
[[ $rc -eq 1 ]] || fail "check of a truncated device: exit $rc"
grep -q "capacity0.img: 33554432 bytes, expected 67108864" "$WORK/trunc.check" ||
  fail "check message: $(cat "$WORK/trunc.check")"
rc=0; "$TIERLAB_BIN" serve "$WORK/twin" --nbd "unix:$tsock" 2>"$WORK/trunc.err" || rc=$?
[[ $rc -eq 1 ]] || fail "serve of a truncated device: exit $rc"
grep -q "capacity0.img: 33554432 bytes, shorter than the 67108864" "$WORK/trunc.err" ||
  fail "serve message: $(cat "$WORK/trunc.err")"
[[ $(stat -c %s "$WORK/twin/capacity0.img") -eq 33554432 ]] || fail "serve resized the device"
"$TIERLAB_BIN" check "$WORK/twin" >/dev/null && fail "check passes after serve"

# --- a directory where a device file belongs -------------------------------------
rm "$WORK/twin/capacity0.img"
mkdir "$WORK/twin/capacity0.img"
rc=0; "$TIERLAB_BIN" check "$WORK/twin" >"$WORK/dir.check" || rc=$?
[[ $rc -eq 1 ]] || fail "check with a directory as device: exit $rc"
grep -q "capacity0.img: not a regular file or block device" "$WORK/dir.check" ||
  fail "check message: $(cat "$WORK/dir.check")"
rc=0; "$TIERLAB_BIN" serve "$WORK/twin" --nbd "unix:$tsock" 2>"$WORK/dir.err" || rc=$?
[[ $rc -eq 2 ]] || fail "serve with a directory as device: exit $rc"
grep -q "twin/capacity0.img: " "$WORK/dir.err" || fail "serve message: $(cat "$WORK/dir.err")"
rmdir "$WORK/twin/capacity0.img"
"$TIERLAB_BIN" destroy "$WORK/twin" --force >/dev/null || fail "destroy twin"

# --- destroy that can remove nothing ---------------------------------------------
# Unprivileged: as nobody when root (a copy of the binary it may run), or a
# directory without write permission otherwise.
"$TIERLAB_BIN" create "$WORK/layout.json" --name ro --dir "$WORK/ro" >/dev/null || fail "create ro"
if [[ $(id -u) -eq 0 ]]; then
  need setpriv
  cp "$TIERLAB_BIN" "$WORK/tierlab"
  chmod 755 "$WORK" "$WORK/tierlab"
  touch "$WORK/ro/lock" && chmod 666 "$WORK/ro/lock"
  as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$WORK/tierlab" "$@"; }
else
  chmod 555 "$WORK/ro"
  as_user() { "$TIERLAB_BIN" "$@"; }
fi
rc=0; as_user destroy "$WORK/ro" >"$WORK/ro.out" 2>"$WORK/ro.err" || rc=$?
chmod 755 "$WORK/ro"
[[ $rc -eq 3 ]] || fail "destroy without permission: exit $rc: $(cat "$WORK/ro.out" "$WORK/ro.err")"
grep -q "cache0.img: cannot remove: Permission denied" "$WORK/ro.err" || fail "destroy message: $(cat "$WORK/ro.err")"
grep -q "not destroyed" "$WORK/ro.err" || fail "destroy summary: $(cat "$WORK/ro.err")"
grep -q "destroyed volume" "$WORK/ro.out" && fail "destroy claimed success"
[[ -f "$WORK/ro/volume.json" && -f "$WORK/ro/cache0.img" ]] || fail "destroy removed files after all"
"$TIERLAB_BIN" destroy "$WORK/ro" >/dev/null || fail "destroy ro"
"$TIERLAB_BIN" destroy "$vol" --force >/dev/null || fail "destroy moved"
[[ ! -e "$vol" ]] || fail "moved volume dir left behind"
echo PASS
