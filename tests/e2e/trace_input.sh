#!/usr/bin/env bash
# Traces as they ship, from the command line: gzip, zstd and xz compressed
# traces (told by their magic bytes, not their names), standard input ("-",
# compressed or not) for every command that reads a trace once, a one-line
# exit-2 error for the commands that read it several times, damaged
# compressed files, and key-only traces (keys-u32/keys-u64).
set -euo pipefail
bin=${TIERLAB_BIN:?}
src=${TIERLAB_SOURCE_DIR:?}
data="$src/tests/data/traces"
for tool in gzip zstd xz python3; do
  command -v "$tool" > /dev/null || { echo "SKIP: $tool not installed"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# The figures of a `trace stats --json` without the trace's name.
figures() { python3 -c 'import json,sys; s=json.load(sys.stdin); s.pop("trace"); print(json.dumps(s, sort_keys=True))'; }
# Runs a command that must fail: exit 2, one line on stderr matching $1.
fails_with() {
  local want=$1; shift
  set +e
  "$@" > /dev/null 2> "$tmp/err"; local rc=$?
  set -e
  [ $rc -eq 2 ] || fail "$*: exit $rc, want 2: $(cat "$tmp/err")"
  [ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "$*: not one line: $(cat "$tmp/err")"
  grep -q -- "$want" "$tmp/err" || fail "$*: no '$want' in: $(cat "$tmp/err")"
}

vscsi="$data/cloudPhysicsIO.vscsi"
plain=$("$bin" trace stats "$vscsi" --json | figures)
grep -q '"requests": 113872' <<<"$plain" || fail "plain stats: $plain"

# Each codec, as a file with a misleading name and from standard input.
for codec in "gzip -c" "zstd -q -c" "xz -T1 -c"; do
  $codec "$vscsi" > "$tmp/trace.csv"
  [ "$("$bin" trace stats "$tmp/trace.csv" --json | figures)" = "$plain" ] ||
    fail "$codec file: stats differ"
  $codec "$vscsi" | "$bin" trace stats - --json > "$tmp/s.json"
  [ "$(figures < "$tmp/s.json")" = "$plain" ] || fail "$codec stdin: stats differ"
  grep -q '"trace": "stdin"' "$tmp/s.json" || fail "stdin is not named stdin"
done
[ "$("$bin" trace stats - --json < "$vscsi" | figures)" = "$plain" ] || fail "plain stdin"
"$bin" trace stats - < "$vscsi" | grep -q '^trace *stdin' || fail "table names stdin"

# Multi-member gzip and concatenated zstd frames read to the end (the
# trace cut at a record boundary, each half compressed on its own).
head -c 1600000 "$vscsi" | gzip -c > "$tmp/two.gz"
tail -c +1600001 "$vscsi" | gzip -c >> "$tmp/two.gz"
[ "$("$bin" trace stats "$tmp/two.gz" --json | figures)" = "$plain" ] || fail "two gzip members"
head -c 1600000 "$vscsi" | zstd -q -c > "$tmp/two.zst"
tail -c +1600001 "$vscsi" | zstd -q -c >> "$tmp/two.zst"
[ "$(cat "$tmp/two.zst" | "$bin" trace stats - --json | figures)" = "$plain" ] ||
  fail "two zstd frames from stdin"

# trace convert from compressed standard input: the same bytes as from the file.
"$bin" trace convert "$vscsi" "$tmp/a.bin" --to tierlab 2> /dev/null
xz -T1 -c "$vscsi" | "$bin" trace convert - "$tmp/b.bin" --to tierlab 2> /dev/null
cmp "$tmp/a.bin" "$tmp/b.bin" || fail "convert from stdin differs"

# run --trace - replays the same I/Os as the file.
msr="$data/msr-cambridge1-sample.csv"
"$bin" run --trace "$msr" --layout nvme1+hdd2 --format json > "$tmp/file.json"
gzip -c "$msr" | "$bin" run --trace - --layout nvme1+hdd2 --format json > "$tmp/stdin.json"
python3 - "$tmp/file.json" "$tmp/stdin.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert b["replay"]["trace"] == "-" and b["profile"]["name"] == "stdin", (b["replay"], b["profile"])
for k in ("records", "reads", "writes", "format", "bad_records"):
    assert a["replay"][k] == b["replay"][k], (k, a["replay"][k], b["replay"][k])
for op in ("read", "write"):
    assert a["jobs"][0][op]["total_ios"] == b["jobs"][0][op]["total_ios"], op
    assert a["jobs"][0][op]["io_bytes"] == b["jobs"][0][op]["io_bytes"], op
PY

# Commands that read the trace more than once refuse standard input.
fails_with 'standard input can be read only once' \
  "$bin" analyze --trace - --cache-size 1g --capacity hdd2 < "$msr"
echo '{"layouts": ["nvme1+hdd2"], "profiles": [{"trace": "-"}]}' > "$tmp/m.json"
fails_with 'standard input can be read only once' "$bin" matrix "$tmp/m.json" -q -o "$tmp/out.json" < "$msr"

# Damaged compressed traces: exit 2, one line naming the file and the codec.
zstd -q -c "$vscsi" > "$tmp/trace.vscsi.zst"
head -c 100000 "$tmp/trace.vscsi.zst" > "$tmp/cut.vscsi.zst"
fails_with 'cut.vscsi.zst: zstd: truncated' "$bin" trace stats "$tmp/cut.vscsi.zst"
gzip -c "$msr" > "$tmp/msr.csv.gz"
head -c 5000 "$tmp/msr.csv.gz" > "$tmp/cut.csv.gz"
fails_with 'cut.csv.gz: gzip: truncated' "$bin" trace convert "$tmp/cut.csv.gz" "$tmp/x.bin" --to tierlab
fails_with 'stdin: gzip: truncated' "$bin" run --trace - --layout nvme1+hdd2 < "$tmp/cut.csv.gz"
python3 - "$tmp/trace.vscsi.zst" "$tmp/bad.vscsi.zst" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 0x55
open(sys.argv[2], "wb").write(b)
PY
fails_with 'bad.vscsi.zst: zstd: ' "$bin" trace stats "$tmp/bad.vscsi.zst"
xz -T1 -c "$msr" > "$tmp/msr.csv.xz"
fails_with 'stdin: xz: truncated' "$bin" trace stats - < <(head -c 3000 "$tmp/msr.csv.xz")

# Key-only traces: named, never detected; key k reads 4 KiB at k * 4 KiB.
python3 - "$tmp/keys.u64" <<'PY'
import struct, sys
keys = [5, 1, 5, 9, 5, 2**40]
open(sys.argv[1], "wb").write(b"".join(struct.pack("<Q", k) for k in keys))
PY
fails_with 'key-only traces are never detected' "$bin" trace stats "$tmp/keys.u64"
"$bin" trace stats "$tmp/keys.u64" --format keys-u64 --json > "$tmp/k.json"
python3 - "$tmp/k.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["format"] == "keys-u64" and s["requests"] == 6 and s["read"]["requests"] == 6, s
assert s["min_request_bytes"] == 4096 and s["max_request_bytes"] == 4096, s
assert s["unique_start_offsets"] == 4, s
PY
"$bin" trace stats "$tmp/keys.u64" --format keys-u64 --object-size 512 --json |
  python3 -c 'import json,sys; s=json.load(sys.stdin); assert s["max_request_bytes"] == 512, s'
zstd -q -c "$tmp/keys.u64" | "$bin" trace stats - --format keys-u64 --json > "$tmp/k2.json"
[ "$(figures < "$tmp/k2.json")" = "$(figures < "$tmp/k.json")" ] || fail "keys through zstd"
# A partial key at the end: exit 2 with its byte offset, or skipped with --skip-bad.
printf '\x01\x02\x03' >> "$tmp/keys.u64"
fails_with 'keys.u64: record 6: truncated at byte 48: 3 of 8 bytes' \
  "$bin" trace stats "$tmp/keys.u64" --format keys-u64
"$bin" trace stats "$tmp/keys.u64" --format keys-u64 --skip-bad --json 2> "$tmp/err" > "$tmp/k.json"
grep -q 'skipped 1 malformed' "$tmp/err" || fail "partial key not counted: $(cat "$tmp/err")"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s["requests"] == 6 and s["bad_records"] == 1, s' "$tmp/k.json"
"$bin" run --trace "$tmp/keys.u64" --trace-format keys-u64 --skip-bad --layout nvme1+hdd2 \
  --format json 2> /dev/null |
  python3 -c 'import json,sys; r=json.load(sys.stdin)["replay"]; assert r["records"] == 6 and r["reads"] == 6, r'
echo OK
