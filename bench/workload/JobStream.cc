#include "bench/workload/JobStream.h"

#include <algorithm>
#include <string>

namespace tierlab {
namespace {

// Whether fio, after its fixups, runs the job as a random writer without a
// random map: norandommap given, a distribution other than the uniform one
// (init.c's fixup_options) or a blockalign other than a direction's
// smallest size ("Any use of blockalign= turns off randommap").
bool FioRandomWriterWithoutMap(const Profile& p) {
  const bool random_writer =
      p.rw == RwMode::kRandWrite || p.rw == RwMode::kRandRw || p.rw == RwMode::kRandTrimWrite;
  if (!random_writer) return false;
  return p.norandommap || p.random_distribution != RandomDistribution::kRandom ||
         p.ba_turns_off_random_map();
}

}  // namespace

Expected<JobStream> JobStream::Create(const Profile& profile, std::uint64_t volume_bytes,
                                      std::uint32_t alignment, std::uint32_t job_index,
                                      const std::vector<FileRegion>& files) {
  JobStream s;
  if (files.empty()) {
    auto g = WorkloadGenerator::Create(profile, volume_bytes, alignment, job_index);
    if (!g.ok()) return g.error();
    s.gens_.push_back(std::move(*g));
    s.base_.push_back(0);
  } else {
    const auto n = static_cast<std::uint32_t>(files.size());
    for (std::uint32_t f = 0; f < n; ++f) {
      const Profile q = ProfileForFile(profile, volume_bytes, alignment, f, n, files[f].length);
      auto g = WorkloadGenerator::Create(q, files[f].length, alignment, job_index);
      if (!g.ok()) {
        return MakeError(g.error().message + " (in file " + std::to_string(f) + " of job " +
                         std::to_string(job_index) + ", " + std::to_string(files[f].length) +
                         " bytes)");
      }
      s.gens_.push_back(std::move(*g));
      s.base_.push_back(files[f].offset);
    }
  }
  s.wraps_.assign(s.gens_.size(), 0);
  s.done_.assign(s.gens_.size(), false);
  s.time_based_ = profile.time_based;
  // number_ios is the job's, over all its files (the files' profiles have
  // none).
  s.count_limit_ = FioJobLimit(profile, profile.number_ios);
  if (profile.time_based) return s;
  std::uint64_t per_pass = 0;
  for (const auto& g : s.gens_) per_pass += g.region_end() - g.region_begin();
  if (!files.empty() && profile.filesize != 0 && profile.has_size && !profile.size.is_percent) {
    // filesize sizes the files; size still caps the job's bytes, as in
    // fio 3.33 (which does the smaller of size and the files together).
    per_pass = std::min(per_pass, profile.size.bytes);
  }
  s.bytes_limit_ = FioJobLimit(profile, profile.has_io_size ? profile.io_size : per_pass);
  if (profile.has_io_size && FioRandomWriterWithoutMap(profile)) {
    // fio's do_io lets such a job write up to io_size in one pass, drawing
    // new offsets throughout ("random overwrite workloads").
    per_pass = std::max(per_pass, profile.io_size);
  }
  if (profile.loops > 1 || profile.has_io_size) {
    s.first_ = s.gens_;
    s.pass_bytes_ = per_pass * (profile.is_trimwrite() ? 2 : 1);
  }
  return s;
}

NextIo JobStream::Next() {
  // fio's do_io ends a pass once it has issued the pass's bytes, or where
  // its files are done (the sequence wraps).
  if (pass_bytes_ != 0 && drawn_ >= pass_bytes_) return StartPass();
  NextIo io = Draw();
  if (pass_bytes_ != 0 && io.wrapped) return StartPass();
  drawn_ += io.length;
  return io;
}

NextIo JobStream::StartPass() {
  for (std::size_t f = 0; f < gens_.size(); ++f) gens_[f].RestartAs(first_[f]);
  std::fill(wraps_.begin(), wraps_.end(), 0);
  passes_ = 0;
  std::fill(done_.begin(), done_.end(), false);
  done_count_ = 0;
  next_ = 0;
  NextIo io = Draw();
  io.wrapped = true;  // the runner counts the passes by it
  drawn_ = io.length;
  return io;
}

NextIo JobStream::Draw() {
  for (;;) {
    const std::size_t f = next_;
    if (gens_.size() > 1) next_ = next_ + 1 == gens_.size() ? 0 : next_ + 1;
    if (done_[f]) continue;
    NextIo io = gens_[f].Next();
    io.offset += base_[f];
    if (!io.wrapped || gens_.size() == 1) return io;
    if (time_based_) {
      ++wraps_[f];
      const std::uint32_t all = *std::min_element(wraps_.begin(), wraps_.end());
      io.wrapped = all > passes_;
      passes_ = all;
      return io;
    }
    // The file is done for the pass (fio's fio_file_done); the pass ends
    // with the last one, at the I/O that begins the next.
    done_[f] = true;
    if (++done_count_ < gens_.size()) continue;
    std::fill(done_.begin(), done_.end(), false);
    done_count_ = 0;
    return io;
  }
}

std::vector<FileRegion> JobStream::regions() const {
  std::vector<FileRegion> out;
  for (std::size_t f = 0; f < gens_.size(); ++f) {
    out.push_back(
        {base_[f] + gens_[f].region_begin(), gens_[f].region_end() - gens_[f].region_begin()});
  }
  return out;
}

}  // namespace tierlab
