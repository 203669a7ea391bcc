// libFuzzer target for the profile parsers: the bytes are tried as a fio job
// file (with and without ignore_unknown) and, when the JSON reader accepts
// them, as a profile object. Every accepted profile must round-trip through ToJson and
// build a generator and a job stream without crashing, their I/O inside the
// region. See fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string_view>

#include "bench/workload/FioJobFile.h"
#include "bench/workload/JobStream.h"
#include "bench/workload/Profile.h"
#include "bench/workload/WorkloadGenerator.h"
#include "layouts/JsonParse.h"

namespace {

constexpr std::uint64_t kVolume = 1ull << 30;

// An I/O starts in its region and ends in it, or, as fio's sequential I/O of
// a fixed size over a region that is not a multiple of it, past its end but
// inside the volume.
bool Inside(const tierlab::NextIo& io, std::uint64_t begin, std::uint64_t end) {
  return io.offset >= begin && io.offset < end && io.offset + io.length <= kVolume;
}

void Exercise(const tierlab::Profile& p) {
  auto again = tierlab::ParseProfileJson(tierlab::ToJson(p), "roundtrip");
  if (!again.ok() || !(*again == p)) std::abort();  // ToJson must round-trip
  auto g = tierlab::WorkloadGenerator::Create(p, kVolume, 512, 0);
  if (g.ok()) {
    for (int i = 0; i < 64; ++i) {
      const auto io = g->Next();
      if (!Inside(io, g->region_begin(), g->region_end())) std::abort();
    }
  }
  // The job's stream, whose passes restart the generator (JobStream.h).
  auto s = tierlab::JobStream::Create(p, kVolume, 512, 0, {});
  if (s.ok() != g.ok()) std::abort();
  if (s.ok()) {
    const tierlab::FileRegion r = s->regions().front();
    for (int i = 0; i < 256; ++i) {
      const auto io = s->Next();
      if (!Inside(io, r.offset, r.offset + r.length)) std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool ignore : {false, true}) {
    auto jobs = tierlab::ParseFioJobFile(text, "fuzz.fio", ignore);
    if (jobs.ok()) {
      for (const auto& p : *jobs) Exercise(p);
    } else if (jobs.error().message.empty()) {
      std::abort();  // errors must say something
    }
  }
  // The JSON reader every profile file goes through (depth, duplicates).
  const auto j = tierlab::ParseJsonText(text, "fuzz.json");
  if (j.ok()) {
    auto p = tierlab::ParseProfileJson(*j, "fuzz.json");
    if (p.ok()) Exercise(*p);
  } else if (j.error().message.empty()) {
    std::abort();
  }
  return 0;
}
