#pragma once
// What a job's writes carry: fio's buffer options (HOWTO, "Buffers and
// memory"; fio's io_u.c fill_io_buffer and dedupe.c), for volumes that
// carry data (--real, with-data models). Timing-only runs carry nothing.
//
// Without any of these options, tierlab fills each of a job's buffers once
// with random bytes and reuses them, as fio does without refill_buffers
// (fio's scramble_buffers, which alters a few bytes of each write, is not
// followed). With them, every write's buffer is filled anew, as fio
// enables refill_buffers for compression and dedupe:
//
//   dedupe_percentage P  P % of the writes carry a buffer another write
//                        carries too; the rest carry new data.
//     dedupe_mode=repeat (default): such a write repeats the unique buffer
//                        next to come (fio keeps the generator's state after
//                        the last unique buffer), so each pairs with one.
//     dedupe_mode=working_set: the first unique buffers of the job, enough
//                        for dedupe_working_set_percentage % of its size at
//                        its smallest write size, are its working set; such
//                        a write repeats one of them at random. With
//                        dedupe_global, the working set is spread over the
//                        run's jobs: each job's first buffers, in turn from
//                        its own, as fio spreads it over its threads.
//     P 100: every write carries the same buffer, as fio's.
//   buffer_compress_percentage C  each chunk of buffer_compress_chunk
//                        bytes (512; 0: the write) is (100 - C) % random
//                        bytes, then zeros, or buffer_pattern, so that the
//                        data compresses by about C %. fio's chunk is the
//                        smaller of this and the job's smallest write.
//   buffer_pattern       fio's pattern (FioPattern.h, no %o) fills the
//                        buffers, or the compressible part of them.
//   zero_buffers         zeros.
//
// The random bytes are tierlab's own, from the job's seed (not fio's).
//
// Not thread-safe: one per job.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/workload/FioPattern.h"
#include "bench/workload/Random.h"

namespace tierlab {

struct WriteDataSpec {
  std::uint32_t dedupe_percentage = 0;
  bool dedupe_working_set = false;  // dedupe_mode=working_set (else repeat)
  std::uint32_t dedupe_working_set_percentage = 5;
  bool dedupe_global = false;
  std::uint32_t compress_percentage = 0;  // buffer_compress_percentage
  std::uint64_t compress_chunk = 512;     // buffer_compress_chunk
  std::string pattern;                    // buffer_pattern as written ("": none)
  bool zero_buffers = false;
  bool operator==(const WriteDataSpec&) const = default;

  // Whether writes carry anything but tierlab's reused random buffers.
  bool any() const {
    return dedupe_percentage != 0 || compress_percentage != 0 || !pattern.empty() || zero_buffers;
  }
};

class WriteData {
 public:
  // For job `job` of the run's `jobs` (fio's thread numbers, clones
  // counted), whose writes are at least `min_write` bytes over `size` bytes.
  // `pattern`: buffer_pattern parsed (empty bytes: none).
  WriteData(const WriteDataSpec& spec, FioPattern pattern, std::uint64_t seed, std::uint32_t job,
            std::uint32_t jobs, std::uint64_t size, std::uint64_t min_write);

  // The next write's buffer, `len` bytes.
  void Fill(std::byte* buf, std::uint64_t len);

  // The number of buffers in the working set (0 without one), and which
  // job's which unique buffer entry `i` is.
  std::uint64_t working_set() const { return working_set_; }
  std::pair<std::uint32_t, std::uint64_t> WorkingSetEntry(std::uint64_t i) const;

 private:
  // The buffer of job `owner`'s unique buffer number `n`.
  void FillUnique(std::uint32_t owner, std::uint64_t n, std::byte* buf, std::uint64_t len) const;

  WriteDataSpec spec_;
  FioPattern pattern_;
  std::uint64_t seed_;
  std::uint32_t job_, jobs_;
  std::uint64_t chunk_;  // compression chunk
  std::uint64_t working_set_ = 0;
  std::uint64_t per_job_ = 1;  // dedupe_global: working-set entries per job in turn
  std::uint64_t next_unique_ = 0;
  Xoshiro256 draws_;  // dedupe's choices
};

}  // namespace tierlab
