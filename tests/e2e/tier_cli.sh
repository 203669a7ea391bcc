#!/usr/bin/env bash
# The tier target from the command line: bad tiering input is a one-line
# error naming the file and field, exit code 2; a small tiered run (SSD tier
# over HDD tier, fixed provisioning, zipf) reports the tiering section and
# moves extents both ways.
set -euo pipefail
bin=${TIERLAB_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# layout NAME TIERING SSD_CAPACITY
layout() {
  cat > "$tmp/$1.json" <<EOF
{"name": "$1", "size": "4g",
 "tiers": [{"name": "ssd", "preset": "ssd-hk4e", "count": 1, "capacity": "$3"},
           {"name": "hdd", "preset": "hdd-7200", "count": 1, "capacity": "8g"}],
 "tiering": $2}
EOF
}
cat > "$tmp/zipf.json" <<'EOF'
{"name": "zipf", "rw": "randrw", "rwmixread": 70, "bs": "4k", "iodepth": 8, "size": "4g",
 "random_distribution": "zipf:1.2", "runtime": "20s", "ramp_time": "20s"}
EOF

# expect_error NAME PATTERN: the run fails with exit 2 and one line matching.
expect_error() {
  local rc=0
  "$bin" run --layout "$tmp/$1.json" --profile "$tmp/zipf.json" >/dev/null 2>"$tmp/err" || rc=$?
  [[ $rc -eq 2 ]] || fail "$1: exit $rc, want 2: $(cat "$tmp/err")"
  [[ $(wc -l <"$tmp/err") -eq 1 ]] || fail "$1: error is not one line: $(cat "$tmp/err")"
  grep -q -- "$2" "$tmp/err" || fail "$1: error does not match '$2': $(cat "$tmp/err")"
}
layout bad-extent '{"extent_size": 1049000}' 1g
expect_error bad-extent "bad-extent.json: tiering.extent_size: must be a multiple of the block size 512, got 1049000"
layout small-extent '{"extent_size": "512k"}' 1g
expect_error small-extent "small-extent.json: tiering.extent_size: must be 1 MiB..256 MiB"
layout zero-tier '{}' 0
expect_error zero-tier "zero-tier.json: tiers\[0\].capacity: must be at least"
layout pin-outside '{"pins": [{"offset": "3g", "length": "2g", "tier": 0}]}' 1g
expect_error pin-outside "pin-outside.json: tiering.pins\[0\]: range .* is outside the volume (size 4294967296)"
layout pin-tier '{"pins": [{"offset": "0", "length": "1g", "tier": 5}]}' 1g
expect_error pin-tier "pin-tier.json: tiering.pins\[0\].tier: must be < 2"
layout bad-schedule '{"schedule": "sometimes"}' 1g
expect_error bad-schedule "bad-schedule.json: tiering.schedule:"

# A tiered run: the hot set is promoted (each promotion swapped with a
# demotion, since fixed provisioning fills the SSD tier), and the section
# holds per-tier extents and shares, migrations and the heat histogram.
layout ok '{"extent_size": "8m", "interval_ms": 200, "heat_half_life_s": 10}' 1g
"$bin" run --layout "$tmp/ok.json" --profile "$tmp/zipf.json" --format json -o "$tmp/r.json"
python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
t = r["tiering"]
assert t["extent_size"] == 8 << 20, t
ssd, hdd = t["tiers"]
assert ssd["extents"] + hdd["extents"] == 512, t["tiers"]  # 4 GiB of 8 MiB extents, all placed
assert t["promotions"] > 0 and t["demotions"] > 0, t
assert t["promoted_bytes"] == t["promotions"] * (8 << 20), t
assert t["migration_busy_ns"] > 0 and t["migration_passes"] > 0, t
assert abs(ssd["op_share"] + hdd["op_share"] - 1) < 1e-9, t["tiers"]
assert ssd["op_share"] > 0.5, ssd  # zipf:1.2 hot set fits the 1 GiB SSD tier
assert sum(t["heat_histogram"]) == 512, t["heat_histogram"]
assert ssd["slots"] == 128 and ssd["read_bytes"] == ssd["read_ops"] * 4096, ssd
assert t["migrations_abandoned"] == 0 and t["migration_errors"] == 0, t
assert t["max_held_ns"] <= t["max_move_ns"], t  # a hold never outlasts one move
assert r["layout"]["tiering"]["provisioning"] == "fixed", r["layout"]
PY
echo ok
