#pragma once
// The I/O stream of one job over its files (JobFiles.h): a WorkloadGenerator
// per file, each over its file as if it were the volume, taken round robin
// one I/O at a time (fio's file_service_type=roundrobin), with the file's
// offset on the volume added. A job without files has one generator over
// the whole volume, and its stream is that generator's, unchanged.
//
// A file that comes to its end (a sequence wraps, a random map is full) is
// done for the pass, and the job takes I/O from the others until every
// file is done, as fio's; a time based job's files start again where they
// end, as fio's do.
//
// The end-of-job conditions are the job's, over all its files, as fio's:
// bytes (io_size, else the files' regions together, capped by size when
// filesize sized the files) x loops (x 2 for trimwrite); number_ios x
// loops; and whether another pass starts (AnotherPass) where one ends:
// when every file has wrapped, or after the pass's bytes (NextIo::wrapped
// is set on the first I/O of the next pass).
//
// A job that does more than one pass (loops, or io_size over size) starts
// each pass as fio does: after the pass's bytes (its regions together, or
// size where filesize sized the files), or where the sequence wraps, its
// generators restart as created (RestartAs), and the pass's first I/O is
// flagged wrapped. A job that writes at random without fio's random map
// does io_size in one pass, as fio's do_io lets it.

#include <cstdint>
#include <vector>

#include "bench/workload/JobFiles.h"
#include "bench/workload/WorkloadGenerator.h"

namespace tierlab {

class JobStream {
 public:
  // `files` empty: the job addresses the whole volume. Errors are the
  // generators' (exit code 2), with the file named when there are files.
  static Expected<JobStream> Create(const Profile& profile, std::uint64_t volume_bytes,
                                    std::uint32_t alignment, std::uint32_t job_index,
                                    const std::vector<FileRegion>& files);

  NextIo Next();

  std::uint64_t io_bytes_limit() const { return bytes_limit_; }
  std::uint64_t io_count_limit() const { return count_limit_; }
  bool ends_at_pass() const { return gens_.front().ends_at_pass(); }
  bool AnotherPass(std::uint32_t passes, std::uint64_t done) const {
    return gens_.front().AnotherPass(passes, done);
  }
  std::uint32_t loops() const { return gens_.front().loops(); }
  bool keeps_random_map() const { return gens_.front().keeps_random_map(); }
  std::size_t file_count() const { return gens_.size(); }
  // Where the job's I/O lands on the volume: each file's region (job
  // offset and size within it), in file order.
  std::vector<FileRegion> regions() const;

 private:
  JobStream() = default;
  // The next I/O round robin over the files, and the first of a new pass.
  NextIo Draw();
  NextIo StartPass();

  std::vector<WorkloadGenerator> gens_;
  // Passes: the generators as created, the bytes a pass does (0: one pass,
  // nothing restarts) and the bytes drawn in this one.
  std::vector<WorkloadGenerator> first_;
  std::uint64_t pass_bytes_ = 0;
  std::uint64_t drawn_ = 0;
  std::vector<std::uint64_t> base_;  // each file's offset on the volume
  // A time based job's files go on past their end (fio restarts a file
  // there): passes each has completed, and every file has.
  std::vector<std::uint32_t> wraps_;
  std::uint32_t passes_ = 0;
  // Otherwise a file at its end is done for the pass, as in fio, and the
  // others go on; the pass ends when every file is done.
  bool time_based_ = false;
  std::vector<bool> done_;
  std::size_t done_count_ = 0;
  std::size_t next_ = 0;  // the file of the next I/O
  std::uint64_t bytes_limit_ = 0;
  std::uint64_t count_limit_ = 0;
};

}  // namespace tierlab
