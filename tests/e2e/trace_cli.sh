#!/usr/bin/env bash
# tierlab trace stats / convert from the command line: figures of the real
# CloudPhysics trace, lossless round trips through the tierlab binary format,
# and malformed input (file:line errors, exit code 2, --skip-bad counts).
set -euo pipefail
bin=${TIERLAB_BIN:?}
src=${TIERLAB_SOURCE_DIR:?}
data="$src/tests/data/traces"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Stats of the CloudPhysics vscsi trace, detected from content; the counts
# are the ones the reader tests pin.
"$bin" trace stats "$data/cloudPhysicsIO.vscsi" --json > "$tmp/s.json"
python3 - "$tmp/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["format"] == "vscsi", s["format"]
assert s["requests"] == 113872, s["requests"]
assert s["read"]["requests"] == 46974 and s["write"]["requests"] == 66898
assert s["min_request_bytes"] == 512 and s["max_request_bytes"] == 68 * 1024
assert s["unique_start_offsets"] == 48974
assert s["bad_records"] == 0
assert s["duration_s"] > 0 and s["iops"] > 0
assert sum(b["requests"] for b in s["size_histogram"]) == 113872
PY
out=$("$bin" trace stats "$data/cloudPhysicsIO.vscsi")
grep -Eq '^requests +113872' <<<"$out" || fail "table has no requests row: $out"
grep -q '^format *vscsi' <<<"$out" || fail "table has no format row"
"$bin" trace stats --format spc "$data/spc.csv" --json | python3 -c '
import json, sys; s = json.load(sys.stdin); assert s["requests"] == 4, s["requests"]'

# Round trip: vscsi -> tierlab -> msr -> tierlab keeps what MSR holds; the
# tierlab binary is lossless, so converting it again is byte-identical.
"$bin" trace convert "$data/cloudPhysicsIO.vscsi" "$tmp/a.bin" --to tierlab 2>"$tmp/err"
grep -q 'wrote 113872 record' "$tmp/err" || fail "convert summary: $(cat "$tmp/err")"
"$bin" trace convert "$tmp/a.bin" "$tmp/b.bin" --to tierlab --from tierlab 2>/dev/null
cmp "$tmp/a.bin" "$tmp/b.bin" || fail "tierlab -> tierlab is not identical"
"$bin" trace convert "$data/msr-cambridge1-sample.csv" "$tmp/m.bin" --to tierlab 2>/dev/null
"$bin" trace convert "$tmp/m.bin" "$tmp/m.csv" --to msr 2>/dev/null
"$bin" trace convert "$tmp/m.csv" "$tmp/m2.bin" --to tierlab 2>/dev/null
cmp "$tmp/m.bin" "$tmp/m2.bin" || fail "msr -> tierlab -> msr -> tierlab differs"
"$bin" trace convert "$tmp/m.bin" "$tmp/m.iolog" --to fio 2>/dev/null
# "-" is standard output (and input): a pipe gives the same bytes as a file.
( cd "$tmp" && "$bin" trace convert m.bin - --to fio 2>/dev/null >piped.iolog )
cmp "$tmp/m.iolog" "$tmp/piped.iolog" || fail "convert to - differs from convert to a file"
[[ ! -e "$tmp/-" ]] || fail "convert to - created a file named -"
"$bin" trace convert - - --to tierlab --from msr <"$tmp/m.csv" 2>/dev/null >"$tmp/m3.bin"
cmp "$tmp/m.bin" "$tmp/m3.bin" || fail "msr on stdin -> tierlab on stdout differs"
head -1 "$tmp/m.iolog" | grep -q 'fio version 3 iolog' || fail "fio output header"
[ "$("$bin" trace stats "$tmp/m.iolog" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])')" = \
  "$("$bin" trace stats "$tmp/m.bin" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["requests"])')" ] \
  || fail "fio iolog request count differs"

# Malformed input: file:line, exit 2.
set +e
"$bin" trace stats "$data/spc-bad.csv" --format spc 2>"$tmp/err" >/dev/null; rc=$?
set -e
[ $rc -eq 2 ] || fail "bad spc exit code $rc"
grep -q 'spc-bad.csv:2:' "$tmp/err" || fail "no file:line in: $(cat "$tmp/err")"
set +e
"$bin" trace convert "$data/msr-bad.csv" "$tmp/x.bin" --to tierlab 2>"$tmp/err"; rc=$?
set -e
[ $rc -eq 2 ] || fail "bad msr convert exit code $rc"
grep -q 'msr-bad.csv:2:' "$tmp/err" || fail "no file:line in: $(cat "$tmp/err")"

# --skip-bad: counted, reported, exit 0.
"$bin" trace stats "$data/spc-bad.csv" --format spc --skip-bad --json 2>"$tmp/err" >"$tmp/s.json"
grep -q 'skipped 3 malformed' "$tmp/err" || fail "skip count: $(cat "$tmp/err")"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["bad_records"]==3 and s["requests"]==2, s' "$tmp/s.json"
"$bin" trace convert "$data/msr-bad.csv" "$tmp/x.bin" --to tierlab --skip-bad 2>"$tmp/err"
grep -q 'skipped' "$tmp/err" || fail "convert skip count: $(cat "$tmp/err")"

# Usage errors.
set +e
"$bin" trace convert "$data/spc.csv" "$tmp/y" --to blkparse 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "unwritable format exit $rc"
"$bin" trace stats "$tmp/does-not-exist" 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "missing file exit $rc"
set -e
echo OK
