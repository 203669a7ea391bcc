#include "bench/lab/FioOutput.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <utility>
#include <vector>

#include "tierlab/Version.h"

namespace tierlab {
namespace {

std::uint64_t U64(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number()) return 0;
  const double v = j.at(key).get<double>();
  return v > 0 ? static_cast<std::uint64_t>(v) : 0;
}

double Dbl(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number()) return 0;
  return j.at(key).get<double>();
}

void Add(std::string& out, const char* fmt, auto... args) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, args...);
  out += buf;
}

// min;max;mean;stddev in us of a fio latency object in ns, as fio's terse
// lines give them (integer min/max, %f mean/stddev).
void LatencyUs(std::string& out, const nlohmann::json& lat) {
  Add(out, ";%" PRIu64 ";%" PRIu64 ";%f;%f", U64(lat, "min") / 1000, U64(lat, "max") / 1000,
      Dbl(lat, "mean") / 1000, Dbl(lat, "stddev") / 1000);
}

// fio's terse line always has 20 percentile fields (FIO_IO_U_LIST_MAX_LEN).
constexpr std::size_t kTersePercentiles = 20;

void Percentiles(std::string& out, const nlohmann::json& clat) {
  std::vector<std::pair<double, std::uint64_t>> pct;
  if (U64(clat, "N") > 0 && clat.contains("percentile") && clat.at("percentile").is_object()) {
    for (const auto& [key, value] : clat.at("percentile").items()) {
      if (value.is_number()) pct.emplace_back(std::stod(key), value.get<std::uint64_t>());
    }
  }
  std::sort(pct.begin(), pct.end());
  for (std::size_t i = 0; i < kTersePercentiles; ++i) {
    if (i < pct.size()) {
      Add(out, ";%f%%=%" PRIu64, pct[i].first, pct[i].second / 1000);
    } else {
      out += ";0%=0";
    }
  }
}

// One direction's 41 fields: io, bandwidth, IOPS, runtime, slat, clat,
// clat percentiles, lat, bandwidth samples.
void Direction(std::string& out, const nlohmann::json& s) {
  const nlohmann::json none = nlohmann::json::object();
  Add(out, ";%" PRIu64 ";%" PRIu64 ";%" PRIu64 ";%" PRIu64, U64(s, "io_bytes") >> 10,
      static_cast<std::uint64_t>(Dbl(s, "bw_bytes") / 1024), U64(s, "iops"), U64(s, "runtime"));
  LatencyUs(out, s.value("slat_ns", none));
  LatencyUs(out, s.value("clat_ns", none));
  Percentiles(out, s.value("clat_ns", none));
  LatencyUs(out, s.value("lat_ns", none));
  Add(out, ";%" PRIu64 ";%" PRIu64 ";%f%%;%f;%f", U64(s, "bw_min"), U64(s, "bw_max"),
      Dbl(s, "bw_agg"), Dbl(s, "bw_mean"), Dbl(s, "bw_dev"));
}

// fio's completion-latency distribution (io_u_mark_latency): below 1 us in
// the first us field; us fields by whole us below 2, 4, 10, 20, 50, 100,
// 250, 500, 750, 1000; ms fields by whole ms below 2 ... 2000, and above.
constexpr std::array<std::uint64_t, 10> kUsLimits = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
constexpr std::array<std::uint64_t, 11> kMsLimits = {2,   4,   10,  20,   50,  100,
                                                     250, 500, 750, 1000, 2000};

void LatencyDistribution(std::string& out, const nlohmann::json& job) {
  std::array<std::uint64_t, kUsLimits.size()> us{};
  std::array<std::uint64_t, kMsLimits.size() + 1> ms{};
  std::uint64_t total = 0;
  for (const char* dir : {"read", "write"}) {
    if (!job.contains(dir)) continue;
    const nlohmann::json& s = job.at(dir);
    total += U64(s, "total_ios");
    if (!s.contains("clat_ns") || !s.at("clat_ns").contains("bins")) continue;
    for (const auto& [key, value] : s.at("clat_ns").at("bins").items()) {
      const std::uint64_t ns = std::stoull(key), n = value.get<std::uint64_t>();
      if (ns < 1000 * 1000) {
        const std::uint64_t u = ns / 1000;
        const auto at = std::upper_bound(kUsLimits.begin(), kUsLimits.end(), u);
        us[std::min<std::size_t>(at - kUsLimits.begin(), us.size() - 1)] += n;
      } else {
        const std::uint64_t m = ns / (1000 * 1000);
        ms[std::upper_bound(kMsLimits.begin(), kMsLimits.end(), m) - kMsLimits.begin()] += n;
      }
    }
  }
  // fio: % of all I/Os, at least 0.01 where any.
  auto pct = [total](std::uint64_t n) {
    if (total == 0) return 0.0;
    const double p = 100.0 * static_cast<double>(n) / static_cast<double>(total);
    return n > 0 && p < 0.01 ? 0.01 : p;
  };
  for (std::uint64_t n : us) Add(out, ";%3.2f%%", pct(n));
  for (std::uint64_t n : ms) Add(out, ";%3.2f%%", pct(n));
}

}  // namespace

nlohmann::json ClatBinsJson(const LatencyHistogram& h) {
  nlohmann::json bins = nlohmann::json::object();
  for (int i = 0; i < LatencyHistogram::kBucketCount; ++i) {
    const std::uint64_t n = h.BucketCount(i);
    if (n == 0) continue;
    const std::uint64_t lo = LatencyHistogram::BucketLow(i);
    const std::uint64_t mid = lo + (LatencyHistogram::BucketHigh(i) - lo + 1) / 2;
    bins[std::to_string(mid)] = n;
  }
  return bins;
}

void AddClatBins(nlohmann::json& job, const OpMetrics& m) {
  for (const auto& [dir, stats] : {std::pair{"read", &m.read()}, std::pair{"write", &m.write()}}) {
    if (!job.contains(dir) || !job[dir].contains("clat_ns")) continue;
    const LatencyHistogram& h = stats->clat.Count() > 0 ? stats->clat : stats->lat;
    job[dir]["clat_ns"]["bins"] = ClatBinsJson(h);
  }
}

std::string FormatTerse(const nlohmann::json& doc) {
  std::string out;
  const nlohmann::json none = nlohmann::json::object();
  const nlohmann::json jobs = doc.value("jobs", nlohmann::json::array());
  for (const nlohmann::json& job : jobs) {
    Add(out, "%d;tierlab-%s;", kTerseVersion, kVersion);
    out += job.value("jobname", std::string("job"));
    Add(out, ";%" PRIu64 ";%" PRIu64, U64(job, "groupid"), U64(job, "error"));
    Direction(out, job.value("read", none));
    Direction(out, job.value("write", none));
    out += ";0.000000%;0.000000%;0;0;0";         // CPU: user, system, ctx, majf, minf
    for (int i = 0; i < 7; ++i) out += ";0.0%";  // I/O depths <=1 ... >=64
    LatencyDistribution(out, job);
    for (const nlohmann::json& d : doc.value("disk_util", nlohmann::json::array())) {
      out += ";" + d.value("name", std::string("?"));
      for (const char* key : {"read_ios", "write_ios", "read_merges", "write_merges", "read_ticks",
                              "write_ticks", "in_queue"}) {
        Add(out, ";%" PRIu64, U64(d, key));
      }
      Add(out, ";%3.2f%%", Dbl(d, "util"));
    }
    // fio's continue_on_error fields, after the disks.
    if (job.contains("total_err")) {
      Add(out, ";%" PRIu64 ";%" PRIu64, U64(job, "total_err"), U64(job, "first_error"));
    }
    out += "\n";
  }
  return out;
}

}  // namespace tierlab
