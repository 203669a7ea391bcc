#!/usr/bin/env bash
# Damaged metadata is reported, never trusted, never a crash:
#   1. a journal block of a completed commit damaged (three commits of 252,
#      34 and 34 lines, SIGKILL, 8 bytes flipped in the middle block): check
#      exits 1 naming the block and the lines at risk, serve refuses, check
#      --repair keeps the rest, prints the lost lines and exits 1; then the
#      volume checks clean and serves the written data for the other lines
#      and the origin's (zeros) for the lost ones;
#   2. the last block damaged: a torn commit or damage, which nothing on the
#      device tells apart: a note, exit 0, the two commits before it kept;
#   3. superblock and checkpoint fields with a matching checksum and absurd
#      values: check and serve exit 1 naming the field, status shows it, no
#      abort; check --repair rewrites absurd checkpoints;
#   4. a cache device cut short: serve refuses, check and status say "file
#      is N bytes, needs M" for the region that does not fit.
source "$(dirname "$0")/lib/serve.bash"
need python3 qemu-io
meta() { python3 "$(dirname "$0")/lib/volume_meta.py" "$@"; }

write_layout "$WORK/layout.json" md
vol="$WORK/vol"
sock="$WORK/nbd.sock"
"$TIERLAB_BIN" create "$WORK/layout.json" --name md --dir "$vol" >/dev/null || fail "create"
qio() { qemu-io -t writeback --image-opts "driver=nbd,server.type=unix,server.path=$sock" "$@"; }
# write_lines FIRST END PATTERN: one 4 KiB write per line, then a flush (one commit).
write_lines() {
  local args=()
  for ((l = $1; l < $2; l++)); do args+=(-c "write -P $3 $((l * 4096)) 4k"); done
  qio "${args[@]}" -c flush >/dev/null || fail "write lines $1-$2"
}
start_serve "$sock" "$vol"
write_lines 0 252 0x11
write_lines 252 286 0x22
write_lines 286 320 0x33
kill -KILL "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
SERVE_PID=""
meta journal "$vol/cache0.img" >"$WORK/journal.txt"
grep -q "^seq 1 .* records 252 .*commit 1+1" "$WORK/journal.txt" &&
  grep -q "^seq 2 .* records 34 .*commit 2+1" "$WORK/journal.txt" &&
  grep -q "^seq 3 .* records 34 .*commit 3+1" "$WORK/journal.txt" ||
  fail "not the three commits expected: $(cat "$WORK/journal.txt")"
cp -a "$vol" "$WORK/intact"
fresh() { rm -rf "$vol"; cp -a "$WORK/intact" "$vol"; }

# --- 1. The middle block damaged.
meta flip-journal "$vol/cache0.img" 2 8
rc=0; "$TIERLAB_BIN" check "$vol" >"$WORK/c1.out" || rc=$?
[[ $rc -eq 1 ]] || fail "check exit $rc with a damaged journal block: $(cat "$WORK/c1.out")"
grep -q "^PROBLEM: journal block 2 (ring position 2): checksum mismatch, but blocks of later commits (up to 3) are valid: a committed block is damaged, not a torn tail; lines at risk (as the damaged block reads): 252, 254-285$" \
  "$WORK/c1.out" || fail "check message: $(cat "$WORK/c1.out")"
grep -q "^journal     2 blocks, 286 records to replay, 1 damaged$" "$WORK/c1.out" ||
  fail "check journal line: $(cat "$WORK/c1.out")"
rc=0; "$TIERLAB_BIN" serve "$vol" --nbd "unix:$sock" 2>"$WORK/s1.err" || rc=$?
[[ $rc -eq 1 ]] && grep -q "metadata inconsistent (journal block 2 " "$WORK/s1.err" ||
  fail "serve of a damaged journal: exit $rc, $(cat "$WORK/s1.err")"
rc=0; "$TIERLAB_BIN" check "$vol" --repair >"$WORK/r1.out" || rc=$?
[[ $rc -eq 1 ]] || fail "check --repair exit $rc after journal damage (lines are lost: must be 1)"
[[ $(grep -c "^LOST: line .*named by a damaged journal block" "$WORK/r1.out") -eq 33 ]] &&
  grep -q "^LOST: line 285 (volume bytes 1167360-1171455)" "$WORK/r1.out" &&
  grep -q "repaired, 33 dirty line(s) lost" "$WORK/r1.out" || fail "repair: $(cat "$WORK/r1.out")"
"$TIERLAB_BIN" check "$vol" >"$WORK/c1b.out" || fail "check after repair: $(cat "$WORK/c1b.out")"
grep -q "^dirty       286 lines$" "$WORK/c1b.out" || fail "after repair: $(cat "$WORK/c1b.out")"
rm -f "$sock"  # left by the killed server
start_serve "$sock" "$vol"
qio -c "read -P 0x11 0 $((252 * 4096))" -c "read -P 0 $((252 * 4096)) $((34 * 4096))" \
  -c "read -P 0x33 $((286 * 4096)) $((34 * 4096))" >"$WORK/r1.read" || fail "read after repair"
grep -q "Pattern verification failed" "$WORK/r1.read" && fail "data after repair: $(cat "$WORK/r1.read")"
stop_serve

# --- 2. The last block damaged: where the journal ends.
fresh
meta flip-journal "$vol/cache0.img" 3 8
"$TIERLAB_BIN" check "$vol" >"$WORK/c2.out" || fail "check of a torn last commit: $(cat "$WORK/c2.out")"
grep -q "^note: journal block 3 (ring position 3): checksum mismatch where the journal ends" \
  "$WORK/c2.out" && grep -q "^dirty       286 lines$" "$WORK/c2.out" ||
  fail "check of a torn last commit: $(cat "$WORK/c2.out")"

# --- 3. Fields whose checksum matches and whose values no volume has.
absurd() {  # WHAT MESSAGE volume_meta.py ARGS...
  local what=$1 msg=$2
  shift 2
  fresh
  meta "$1" "$vol/cache0.img" "${@:2}" || fail "$what: volume_meta $*"
  local rc=0
  "$TIERLAB_BIN" check "$vol" >"$WORK/a.out" 2>&1 || rc=$?
  [[ $rc -eq 1 ]] && grep -q "$msg" "$WORK/a.out" || fail "$what: check exit $rc: $(cat "$WORK/a.out")"
  rc=0
  "$TIERLAB_BIN" serve "$vol" --nbd "unix:$sock" >"$WORK/a.out" 2>&1 || rc=$?
  [[ $rc -eq 1 ]] && grep -q "$msg" "$WORK/a.out" || fail "$what: serve exit $rc: $(cat "$WORK/a.out")"
  rc=0
  "$TIERLAB_BIN" status "$vol" >"$WORK/a.out" 2>&1 || rc=$?
  [[ $rc -eq 0 ]] && grep -q "$msg" "$WORK/a.out" || fail "$what: status exit $rc: $(cat "$WORK/a.out")"
}
absurd "slots 2^34" "superblock slots: 17179869184 is not in" superblock slots=2^34 geometry
absurd "line_size 2^40" "superblock line_size: 1099511627776 is not a power of two" \
  superblock line_size=2^40 geometry
absurd "slots 2^28-2" "the metadata area: file is .* bytes, needs 4363124736" \
  superblock slots=2^28-2 geometry
absurd "origin_bytes 0" "superblock origin_bytes: 0 is not in" superblock origin_bytes=0
absurd "origin_bytes 2^64-1" "superblock origin_bytes: 18446744073709551615" \
  superblock origin_bytes=2^64-1
absurd "origin_bytes 2^30" "superblock origin_bytes: 1073741824 exceeds the 67108864 bytes" \
  superblock origin_bytes=2^30
absurd "device_count 0" "superblock device_count: 0" superblock device_count=0
absurd "device_count 2" "superblock device_count: 2, but the volume has 1" superblock device_count=2
absurd "device_index 7" "superblock device_index: 7 is not below device_count 1" \
  superblock device_index=7
absurd "checkpoint B generation 2^64-1" "checkpoint B: its checksum matches but generation 18446744073709551615" \
  checkpoint B generation=2^64-1
absurd "checkpoint A next_seq 2^64-1" "checkpoint A: its checksum matches but next_seq" \
  checkpoint A next_seq=2^64-1
absurd "checkpoint A dirty_count" "checkpoint A: its checksum matches but dirty_count 7, but its line map holds 0" \
  checkpoint A dirty_count=7
# Copy A is the newest (generation 2, written at open) and the journal after
# it has generation 2: copy B (generation 1) and the whole journal on top
# keep every line (the slots the journal names are proven); repair rewrites
# both copies and, having salvaged past damage, exits 1.
grep -q "journal: 3 block(s) of generation 2, newer than the checkpoint used (generation 1)" \
  <("$TIERLAB_BIN" check "$vol") || fail "check: the newer journal not reported"
rc=0; "$TIERLAB_BIN" check "$vol" --repair >"$WORK/r3.out" || rc=$?
[[ $rc -eq 1 ]] && grep -q "repaired, 0 dirty line(s) lost" "$WORK/r3.out" ||
  fail "repair of a checkpoint: exit $rc, $(cat "$WORK/r3.out")"
"$TIERLAB_BIN" check "$vol" >"$WORK/c3.out" || fail "check after the checkpoint repair: $(cat "$WORK/c3.out")"
grep -q "^checkpoint  A ok, B ok" "$WORK/c3.out" && grep -q "^dirty       320 lines$" "$WORK/c3.out" ||
  fail "after the checkpoint repair: $(cat "$WORK/c3.out")"
# The older copy absurd: nothing to salvage, repair rewrites it, exit 0.
fresh
meta checkpoint "$vol/cache0.img" B generation=2^64-1
"$TIERLAB_BIN" check "$vol" --repair >"$WORK/r3b.out" || fail "repair of the older copy: $(cat "$WORK/r3b.out")"
"$TIERLAB_BIN" check "$vol" >"$WORK/c3b.out" && grep -q "^checkpoint  A ok, B ok" "$WORK/c3b.out" &&
  grep -q "^dirty       320 lines$" "$WORK/c3b.out" || fail "after the repair: $(cat "$WORK/c3b.out")"

# --- 4. Short files: serve refuses a device shorter than recorded before
# reading it; check and status name the region that does not fit.
fresh
meta truncate "$vol/cache0.img" 32768
rc=0; "$TIERLAB_BIN" serve "$vol" --nbd "unix:$sock" 2>"$WORK/s4.err" || rc=$?
[[ $rc -eq 1 ]] || fail "serve of a 32 KiB cache device: exit $rc, $(cat "$WORK/s4.err")"
short() {  # MESSAGE
  local rc=0
  "$TIERLAB_BIN" check "$vol" >"$WORK/c4.out" || rc=$?
  [[ $rc -eq 1 ]] && grep -q "^PROBLEM: .*cache0.img: $1" "$WORK/c4.out" ||
    fail "check of a short cache device: exit $rc, $(cat "$WORK/c4.out")"
  "$TIERLAB_BIN" status "$vol" | grep -q "^metadata    ERROR .*cache0.img: $1" ||
    fail "status of a short cache device: $("$TIERLAB_BIN" status "$vol")"
}
short "reading the superblock: file is 32768 bytes, needs 65536$"
meta truncate "$vol/cache0.img" 1048576
short "the metadata area: file is 1048576 bytes, needs 2097152 "
echo PASS
