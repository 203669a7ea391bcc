#include "bench/workload/JobStream.h"

#include <algorithm>
#include <string>

namespace tierlab {

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
  // number_ios is the job's, over all its files (the files' profiles have
  // none); fio doubles it for trimwrite, as the bytes.
  if (!profile.time_based) {
    const unsigned __int128 n = static_cast<unsigned __int128>(profile.number_ios) * profile.loops *
                                (profile.is_trimwrite() ? 2 : 1);
    s.count_limit_ = n > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(n);
  }
  const WorkloadGenerator& g0 = s.gens_.front();
  if (files.empty()) {
    s.bytes_limit_ = g0.io_bytes_limit();
  } else if (!profile.time_based) {
    std::uint64_t per_loop = 0;
    for (const auto& g : s.gens_) per_loop += g.region_end() - g.region_begin();
    if (profile.has_io_size) {
      per_loop = profile.io_size;
    } else if (profile.filesize != 0 && profile.has_size && !profile.size.is_percent) {
      // filesize sizes the files; size still caps the job's bytes, as in
      // fio 3.33 (which does the smaller of size and the files together).
      per_loop = std::min(per_loop, profile.size.bytes);
    }
    // fio's trimwrite trims every byte and writes it: twice the bytes.
    const unsigned __int128 total =
        static_cast<unsigned __int128>(per_loop) * g0.loops() * (profile.is_trimwrite() ? 2 : 1);
    s.bytes_limit_ = total > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(total);
  }
  return s;
}

NextIo JobStream::Next() {
  const std::size_t f = next_;
  if (gens_.size() > 1) next_ = next_ + 1 == gens_.size() ? 0 : next_ + 1;
  NextIo io = gens_[f].Next();
  io.offset += base_[f];
  if (io.wrapped && gens_.size() > 1) {
    ++wraps_[f];
    const std::uint32_t all = *std::min_element(wraps_.begin(), wraps_.end());
    io.wrapped = all > passes_;
    passes_ = all;
  }
  return io;
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
