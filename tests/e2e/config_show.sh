#!/usr/bin/env bash
# `tierlab layout show` and `tierlab profiles show` print the effective JSON
# (every key, defaults filled in), and that JSON reads back to the same
# layout or profile: showing the printed file prints it again unchanged, and
# a run from the printed files gives the same results as one from the names.
set -euo pipefail
bin=${TIERLAB_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || { echo "jq not found" >&2; exit 77; }

for l in nvme2+hdd4 nvme4+ssd4 nvme2+ssd4+hdd4 ssd4/hdd4 hdd4; do
  f="$tmp/$(echo "$l" | tr '+/' '__').json"
  "$bin" layout show "$l" >"$f"
  # Defaults are filled in: every cache key, every tier key.
  if [[ $l == *+* ]]; then
    for k in tier read write policy promotion promotion_concurrency line_size high_watermark \
             low_watermark destage_order destage_concurrency destage_bandwidth \
             destage_max_bytes destage_flush idle_destage_age_ms idle_quiet_ms; do
      jq -e --arg k "$k" '.cache | has($k)' "$f" >/dev/null || fail "$l: cache.$k missing"
    done
  fi
  jq -e '.tiers | all(has("name") and has("count") and has("combine") and has("chunk"))' "$f" \
    >/dev/null || fail "$l: a tier key is missing"
  "$bin" layout show "$f" >"$f.again"
  cmp -s "$f" "$f.again" || fail "$l: does not read back: $(diff "$f" "$f.again")"
done

# A layout file with only the required keys comes out complete.
cat >"$tmp/min.json" <<'EOF2'
{"tiers": [{"preset": "nvme-pm1725"}, {"preset": "hdd-7200", "count": 2}],
 "cache": {}, "tiering": {"schedule": "off"}}
EOF2
"$bin" layout show "$tmp/min.json" >"$tmp/min.out"
[[ $(jq -r '.cache.tier' "$tmp/min.out") == tier0 ]] || fail "cache.tier default: $(cat "$tmp/min.out")"
[[ $(jq -r '.cache.line_size' "$tmp/min.out") == 4k ]] || fail "cache.line_size default"
[[ $(jq -r '.tiering.extent_size' "$tmp/min.out") == 8m ]] || fail "tiering.extent_size default"
"$bin" layout show "$tmp/min.out" >"$tmp/min.again"
cmp -s "$tmp/min.out" "$tmp/min.again" || fail "min.json: does not read back"

for p in 4k-randread 64k-seqwrite hcibench-4k-50rand-r70 hcibench-4k-50rand; do
  "$bin" profiles show "$p" >"$tmp/$p.json"
  "$bin" profiles show "$tmp/$p.json" >"$tmp/$p.again"
  cmp -s "$tmp/$p.json" "$tmp/$p.again" || fail "$p: does not read back"
done
jq -e 'has("randseed") and has("random_scatter") and has("thinktime")' "$tmp/4k-randread.json" \
  >/dev/null || fail "profile defaults missing: $(cat "$tmp/4k-randread.json")"
[[ $(jq 'length' "$tmp/hcibench-4k-50rand.json") == 4 ]] || fail "a group shows all its profiles"

# The same run from the names and from the printed files.
"$bin" profiles show 4k-70-30 | jq '.runtime = "1s" | .ramp_time = "0"' >"$tmp/short.json"
"$bin" run -l nvme1+hdd2 -p "$tmp/short.json" -f json | jq 'del(.version)' >"$tmp/a.json"
"$bin" layout show nvme1+hdd2 >"$tmp/nvme1_hdd2.json"
"$bin" run -l "$tmp/nvme1_hdd2.json" -p "$tmp/short.json" -f json | jq 'del(.version)' >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || fail "a run from the shown layout differs: $(diff "$tmp/a.json" "$tmp/b.json" | head)"

# Errors: an unknown name exits 2 with one line.
rc=0
"$bin" profiles show no-such-profile >/dev/null 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 && $(wc -l <"$tmp/err") -eq 1 ]] || fail "profiles show bad name: exit $rc: $(cat "$tmp/err")"
rc=0
"$bin" layout show nvme2+floppy4 >/dev/null 2>"$tmp/err" || rc=$?
[[ $rc -eq 2 ]] || fail "layout show bad name: exit $rc"
echo ok
