#!/usr/bin/env bash
# fio through NBD (ioengine=nbd) with crc32c verification on a write-back
# cached volume far smaller than the working set, so write-back, eviction and
# destage all happen during the run:
#   1. random mixed read/write, 4k-16k, flushes every 16 writes (fio's
#      fsync= becomes NBD_CMD_FLUSH in the nbd engine), verified at the end;
#   2. random writes with reads verifying them while the run goes on
#      (verify_backlog), then a fresh verify-only pass over everything;
# no verify error, and the server's final counters show destage and eviction.
# Then the mixed run again with io_uring turned off (TIERLAB_NO_IO_URING),
# so libaio serves the files: the fallback is announced in one line and
# verifies as clean.
source "$(dirname "$0")/lib/serve.bash"
need fio python3
fio --enghelp 2>/dev/null | grep -qw nbd || { echo "SKIP: this fio has no nbd engine"; exit 77; }

write_layout "$WORK/layout.json"
sock="$WORK/nbd.sock"
start_serve "$sock" "$WORK/layout.json" --dir "$WORK/files"
uri="nbd+unix:///?socket=$sock"
cd "$WORK"

common=(--ioengine=nbd "--uri=$uri" --iodepth=16 --verify=crc32c --verify_fatal=1
        --size=48m --output-format=terse)
fio --name=mixed "${common[@]}" --rw=randrw --rwmixread=30 --bsrange=4k-16k --fsync=16 \
  --randseed=11 >fio-mixed.out 2>&1 || { cat fio-mixed.out; fail "fio mixed run"; }
fio --name=wr "${common[@]}" --rw=randwrite --bs=4k --fsync=32 --verify_backlog=256 \
  --randseed=12 --do_verify=1 >fio-write.out 2>&1 || { cat fio-write.out; fail "fio write run"; }
fio --name=wr "${common[@]}" --rw=randwrite --bs=4k --randseed=12 --verify_only \
  >fio-verify.out 2>&1 || { cat fio-verify.out; fail "fio verify-only pass"; }

stop_serve
destage=$(final_stat destage_ops)
evict=$(final_stat evictions)
inserts=$(final_stat write_inserts)
errors=$(( $(final_stat destage_errors) + $(final_stat cache_write_errors) + $(final_stat cache_read_errors) ))
echo "destage_ops=$destage evictions=$evict write_inserts=$inserts errors=$errors"
[[ $destage -gt 0 ]] || fail "no destage happened"
[[ $evict -gt 0 ]] || fail "no eviction happened"
[[ $inserts -gt 0 ]] || fail "no write-back insert happened"
[[ $errors -eq 0 ]] || fail "cache errors"
grep -q "using libaio" "$WORK/serve.err" && fail "io_uring run fell back to libaio"

: >"$WORK/serve.err"
TIERLAB_NO_IO_URING=1 start_serve "$sock" "$WORK/layout.json" --dir "$WORK/files-libaio"
fio --name=mixed "${common[@]}" --rw=randrw --rwmixread=30 --bsrange=4k-16k --fsync=16 \
  --randseed=13 >fio-libaio.out 2>&1 || { cat fio-libaio.out; fail "fio mixed run (libaio)"; }
stop_serve
[[ $(grep -c "io_uring turned off by TIERLAB_NO_IO_URING; using libaio" "$WORK/serve.err") -eq 1 ]] ||
  fail "libaio fallback not announced in exactly one line: $(head -3 "$WORK/serve.err")"
echo "libaio: mixed run verified, $(final_stat destage_ops) destage ops"
echo PASS
