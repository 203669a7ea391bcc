#!/usr/bin/env bash
# Metadata files on a full filesystem (docs/DURABILITY.md, "Metadata files"):
#   * `create` whose volume.json cannot be written exits 3 naming the file
#     and leaves nothing behind (no empty volume.json, no device files);
#   * a running `serve` whose serve.json cannot be written keeps the last
#     good one (status still reads it) and says so once on stderr, then
#     writes again when there is room.
# The full filesystem is a 256 KiB tmpfs mounted in a private mount
# namespace (unshare: as root, or as a user where user namespaces are
# allowed); skipped (77) where neither works. The devices live outside it.
if [[ -z "${TIERLAB_IN_MOUNT_NS:-}" ]]; then
  ns=(--mount)
  [[ $(id -u) -eq 0 ]] || ns+=(--map-root-user)
  if ! command -v unshare >/dev/null 2>&1 || ! unshare "${ns[@]}" true 2>/dev/null; then
    echo "SKIP: cannot make a private mount namespace (unshare)"
    exit 77
  fi
  TIERLAB_IN_MOUNT_NS=1 exec unshare "${ns[@]}" bash "$0" "$@"
fi
source "$(dirname "$0")/lib/serve.bash"
need python3 qemu-io

small="$WORK/small"
mkdir "$small"
mount -t tmpfs -o size=256k tmpfs "$small" 2>/dev/null || { echo "SKIP: cannot mount a tmpfs"; exit 77; }
trap 'umount "$small" 2>/dev/null || true; cleanup' EXIT
fill() { dd if=/dev/zero of="$small/fill" bs=4k 2>/dev/null || true; }
python3 - "$WORK/layout.json" "$WORK" <<'PY'
import json, sys
w = sys.argv[2]
j = {"name": "full",
     "tiers": [{"name": "cache", "preset": "ssd-hk4e", "count": 1, "capacity": "16m",
                "paths": [w + "/cache.img"]},
               {"name": "capacity", "preset": "hdd-7200", "count": 1, "capacity": "64m",
                "paths": [w + "/capacity.img"]}],
     "cache": {"tier": "cache", "write": "writeback", "line_size": "4k", "capacity": "8m"}}
json.dump(j, open(sys.argv[1], "w"))
PY

# --- create on a full filesystem --------------------------------------------------
fill
rc=0; "$TIERLAB_BIN" create "$WORK/layout.json" --name full --dir "$small/vol" \
  >"$WORK/create.out" 2>"$WORK/create.err" || rc=$?
[[ $rc -eq 3 ]] || fail "create on a full filesystem: exit $rc: $(cat "$WORK/create.out" "$WORK/create.err")"
grep -q "$small/vol/volume.json.tmp: write: No space left on device" "$WORK/create.err" ||
  fail "create message: $(cat "$WORK/create.err")"
[[ ! -e "$small/vol" ]] || fail "create left $(ls -A "$small/vol")"
[[ ! -e "$WORK/cache.img" && ! -e "$WORK/capacity.img" ]] || fail "create left its device files"
rm "$small/fill"

# --- serve.json on a full filesystem ------------------------------------------------
"$TIERLAB_BIN" create "$WORK/layout.json" --name full --dir "$small/vol" >/dev/null || fail "create"
sock="$WORK/nbd.sock"
start_serve "$sock" "$small/vol" --status-interval 0.2
qio() { qemu-io --image-opts "driver=nbd,server.type=unix,server.path=$sock" "$@"; }
qio -c "write -P 0x42 0 1M" -c flush >/dev/null || fail "write"
sleep 0.5
seq_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['status_seq'])" "$small/vol/serve.json"; }
fill
before=$(seq_of) || fail "serve.json unreadable before"
sleep 1
after=$(seq_of) || fail "serve.json unreadable on a full filesystem: $(cat "$small/vol/serve.json")"
[[ "$after" -le "$((before + 1))" ]] || fail "serve.json kept changing on a full filesystem ($before -> $after)"
grep -q "serve.json.tmp: write: No space left on device (the previous status is kept)" \
  "$WORK/serve.err" || fail "no warning on stderr"
[[ $(grep -c "the previous status is kept" "$WORK/serve.err") -eq 1 ]] || fail "warning repeated"
"$TIERLAB_BIN" status "$small/vol" | grep -q "served by pid $SERVE_PID" || fail "status on a full filesystem"
rm "$small/fill"
sleep 1
(($(seq_of) > after)) || fail "serve.json not written again once there was room"
stop_serve
"$TIERLAB_BIN" check "$small/vol" >/dev/null || fail "check"
"$TIERLAB_BIN" destroy "$small/vol" --force >/dev/null || fail "destroy"
echo PASS
