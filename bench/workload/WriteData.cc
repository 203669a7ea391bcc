#include "bench/workload/WriteData.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace tierlab {
namespace {

constexpr std::uint64_t kContentStream = 0xc0de;
constexpr std::uint64_t kDedupeStream = 0xded0;

void FillRandom(Xoshiro256& rng, std::byte* buf, std::uint64_t len) {
  std::uint64_t i = 0;
  for (; i + 8 <= len; i += 8) {
    const std::uint64_t v = rng.Next();
    std::memcpy(buf + i, &v, 8);
  }
  if (i < len) {
    const std::uint64_t v = rng.Next();
    std::memcpy(buf + i, &v, len - i);
  }
}

}  // namespace

WriteData::WriteData(const WriteDataSpec& spec, FioPattern pattern, std::uint64_t seed,
                     std::uint32_t job, std::uint32_t jobs, std::uint64_t size,
                     std::uint64_t min_write)
    : spec_(spec),
      pattern_(std::move(pattern)),
      seed_(seed),
      job_(job),
      jobs_(std::max<std::uint32_t>(jobs, 1)),
      chunk_(spec.compress_chunk != 0 ? std::min(spec.compress_chunk, min_write) : min_write),
      draws_(DeriveSeed(seed, kDedupeStream, job)) {
  if (spec_.dedupe_percentage != 0 && spec_.dedupe_working_set) {
    working_set_ =
        std::max<std::uint64_t>(1, size * spec_.dedupe_working_set_percentage / 100 / min_write);
    if (spec_.dedupe_global) per_job_ = std::max<std::uint64_t>(working_set_ / jobs_, 1);
  }
}

std::pair<std::uint32_t, std::uint64_t> WriteData::WorkingSetEntry(std::uint64_t i) const {
  if (!spec_.dedupe_global) return {job_, i};
  const auto owner = static_cast<std::uint32_t>((job_ + i / per_job_) % jobs_);
  return {owner, i % per_job_};
}

void WriteData::Fill(std::byte* buf, std::uint64_t len) {
  if (spec_.compress_percentage == 0 && spec_.dedupe_percentage == 0) {
    // The same buffer every time: the pattern, or zeros.
    if (!pattern_.bytes.empty()) {
      FillFromPattern(pattern_, 0, 0, buf, len);
    } else {
      std::memset(buf, 0, len);
    }
    return;
  }
  std::pair<std::uint32_t, std::uint64_t> source{job_, next_unique_};
  const std::uint32_t p = spec_.dedupe_percentage;
  const bool dedupe = p == 100 || (p != 0 && draws_.Below(100) < p);
  if (dedupe && p != 100 && spec_.dedupe_working_set) {
    source = WorkingSetEntry(draws_.Below(working_set_));
  } else if (!dedupe) {
    ++next_unique_;  // a new buffer; a repeat is the next one's
  }
  FillUnique(source.first, source.second, buf, len);
}

void WriteData::FillUnique(std::uint32_t owner, std::uint64_t n, std::byte* buf,
                           std::uint64_t len) const {
  Xoshiro256 rng(DeriveSeed(seed_ ^ kContentStream, owner, n));
  // Each chunk: the random part, then zeros or the pattern.
  for (std::uint64_t at = 0; at < len; at += chunk_) {
    const std::uint64_t chunk = std::min(chunk_, len - at);
    const std::uint64_t random = chunk * (100 - spec_.compress_percentage) / 100;
    FillRandom(rng, buf + at, random);
    if (!pattern_.bytes.empty()) {
      FillFromPattern(pattern_, 0, 0, buf + at + random, chunk - random);
    } else {
      std::memset(buf + at + random, 0, chunk - random);
    }
  }
}

}  // namespace tierlab
