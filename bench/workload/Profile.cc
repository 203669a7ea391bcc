#include "bench/workload/Profile.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <tuple>

#include "bench/workload/FioPattern.h"
#include "bench/workload/FioUnits.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

// fio options tierlab accepts and ignores: engine, file, reporting, logging
// and buffer-content settings that do not change the I/O stream a simulated
// or real tierlab volume sees. Anything else unknown is an error, so a job
// file never runs with a silently dropped option that would change results.
constexpr std::array<std::string_view, 42> kIgnoredFioOptions = {
    "ioengine",
    "direct",
    "buffered",
    "filename_format",
    "group_reporting",
    "thread",
    "randrepeat",
    "allrandrepeat",
    "description",
    "invalidate",
    "gtod_reduce",
    "clocksource",
    "clat_percentiles",
    "lat_percentiles",
    "slat_percentiles",
    "percentile_list",
    "disable_lat",
    "disable_clat",
    "disable_slat",
    "disable_bw_measurement",
    "per_job_logs",
    "unified_rw_reporting",
    "refill_buffers",
    "scramble_buffers",
    "cpus_allowed",
    "cpus_allowed_policy",
    "cpumask",
    "numa_cpu_nodes",
    "numa_mem_policy",
    "allow_mounted_write",
    "fadvise_hint",
    "create_on_open",
    "overwrite",
    "create_serialize",
    "fallocate",
    "userspace_reap",
    "hugepage-size",
    // Who checks (fio's threads) and what is printed or dumped on an error.
    "verify_async",
    "verify_async_cpus",
    "verify_dump",
    "error_dump",
    // An option of fio's tiobench profile (profile=tiobench), which fio
    // accepts in any job file and ignores without that profile.
    "threads",
};

// fio options tierlab does not follow, with the reason its error gives.
// fio's sprandom (SanDisk's random preconditioning) came after fio 3.33,
// the fio tierlab follows and compares itself with.
constexpr std::string_view kNewerThanFio333 =
    "fio's SanDisk random preconditioning is newer than fio 3.33, which tierlab follows";
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kRefusedWithReason = {{
    {"sprandom", kNewerThanFio333},
    {"spr_op", kNewerThanFio333},
    {"spr_num_regions", kNewerThanFio333},
}};

// fio's engines whose jobs are block I/O on a device or file: what a
// tierlab volume serves. Others (net, http, rdma, cpuio, null, exec,
// filecreate...) are refused with the list.
constexpr std::array<std::string_view, 17> kBlockIoEngines = {
    "libaio", "io_uring", "io_uring_cmd", "sync",       "psync",      "vsync",
    "pvsync", "pvsync2",  "posixaio",     "windowsaio", "solarisaio", "mmap",
    "sg",     "nbd",      "libblkio",     "rbd",        "libiscsi"};

// fio's verify methods tierlab accepts: each is checked by comparing every
// byte (VerifyOracle.h), which finds whatever the checksum would.
// "null" is fio's too: the reads are issued, nothing is compared.
// "pattern" is fio's too: the writes carry verify_pattern alone, no header.
constexpr std::array<std::string_view, 18> kVerifyMethods = {
    "md5",      "crc64",    "crc32c",   "crc32c-intel", "crc32",  "crc16",
    "crc7",     "xxhash",   "sha1",     "sha256",       "sha512", "sha3-224",
    "sha3-256", "sha3-384", "sha3-512", "meta",         "null",   "pattern"};

std::string Join(const std::vector<std::string_view>& v) {
  std::string out;
  for (auto s : v) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

Error Reason(std::string msg) {
  return MakeError(std::move(msg));
}

Expected<std::uint32_t> ParsePercent(std::string_view v) {
  auto n = ParseUnsigned(v);
  if (!n) return n.error();
  if (*n > 100) return Reason("must be 0..100, got " + std::string(Trim(v)));
  return static_cast<std::uint32_t>(*n);
}

Expected<std::uint64_t> ParseRange(std::string_view v, std::uint64_t lo, std::uint64_t hi) {
  auto n = ParseUnsigned(v);
  if (!n) return n.error();
  if (*n < lo || *n > hi) {
    return Reason("must be " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " +
                  std::string(Trim(v)));
  }
  return *n;
}

Expected<SizeSpec> ParseSizeSpec(std::string_view text, int kb_base, bool allow_zero,
                                 bool allow_hundred) {
  const std::string_view v = Trim(text);
  SizeSpec s;
  if (!v.empty() && v.back() == '%') {
    auto d = ParseDouble(v.substr(0, v.size() - 1));
    if (!d) return Reason("expected a percentage such as 50%, got " + QuotedText(v));
    const bool ok = (allow_zero ? *d >= 0 : *d > 0) && (allow_hundred ? *d <= 100 : *d < 100);
    if (!ok) {
      return Reason(std::string("percentage must be ") + (allow_zero ? "0" : "> 0") +
                    (allow_hundred ? " .. 100" : " and < 100") + ", got " + std::string(v));
    }
    s.is_percent = true;
    s.percent = *d;
    return s;
  }
  auto b = ParseFioSize(v, kb_base);
  if (!b) return b.error();
  if (!allow_zero && *b == 0) return Reason("must be > 0, got 0");
  s.bytes = *b;
  return s;
}

std::string FormatSizeSpec(const SizeSpec& s) {
  return s.is_percent ? FormatDouble(s.percent) + "%" : FormatFioSize(s.bytes);
}

Expected<void> ParseBsSplit(std::string_view text, int kb_base, std::vector<BsSplitEntry>& out) {
  out.clear();
  std::vector<bool> empty_percent;
  std::string_view rest = Trim(text);
  if (rest.empty()) return Reason("expected size/percent entries such as 4k/50:64k/50, got ''");
  std::uint32_t total = 0;
  while (true) {
    const std::size_t colon = rest.find(':');
    const std::string_view entry = Trim(rest.substr(0, colon));
    const std::size_t slash = entry.find('/');
    auto bs = ParseFioSize(entry.substr(0, slash), kb_base);
    if (!bs) return Reason("entry " + QuotedText(entry) + ": " + bs.error().message);
    if (*bs == 0) return Reason("entry " + QuotedText(entry) + ": block size must be > 0");
    BsSplitEntry e{*bs, 0};
    const std::string_view pct =
        slash == std::string_view::npos ? std::string_view() : Trim(entry.substr(slash + 1));
    empty_percent.push_back(pct.empty());
    if (!pct.empty()) {
      auto p = ParsePercent(pct);
      if (!p) return Reason("entry " + QuotedText(entry) + ": percent " + p.error().message);
      e.percent = *p;
      total += *p;
    }
    out.push_back(e);
    if (out.size() > 64) return Reason("at most 64 entries");
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  // As in fio, entries without a percentage share what is left equally.
  const auto blanks =
      static_cast<std::uint32_t>(std::count(empty_percent.begin(), empty_percent.end(), true));
  if (blanks > 0 && total <= 100) {
    std::uint32_t left = 100 - total, given = 0, seen = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (!empty_percent[i]) continue;
      ++seen;
      out[i].percent = seen == blanks ? left - given : left / blanks;
      given += out[i].percent;
    }
    total = 100;
  }
  if (total != 100) return Reason("percentages must add up to 100, got " + std::to_string(total));
  return {};
}

std::string FormatBsSplit(const std::vector<BsSplitEntry>& v) {
  std::string out;
  for (const auto& e : v) {
    if (!out.empty()) out += ':';
    out += FormatFioSize(e.bs) + "/" + std::to_string(e.percent);
  }
  return out;
}

constexpr std::string_view kDistributionChoices =
    "random, zipf:<theta>, pareto:<h>, normal[:<dev%>], zoned:<access%>/<size%>[:...]";

Expected<void> ParseDistribution(std::string_view text, Profile& p) {
  const std::string_view v = Trim(text);
  const std::size_t colon = v.find(':');
  const std::string_view kind = v.substr(0, colon);
  const std::string_view arg =
      colon == std::string_view::npos ? std::string_view() : v.substr(colon + 1);
  const bool has_arg = colon != std::string_view::npos;
  // Without a parameter, fio's defaults (FIO_DEF_ZIPF, FIO_DEF_PARETO); an
  // empty one after the colon fails in fio too.
  auto one_number = [&](std::string_view what, double fallback) -> Expected<double> {
    if (!has_arg) return fallback;
    if (Trim(arg).empty()) {
      return Reason(std::string(kind) + " needs a parameter, e.g. " + std::string(kind) + ":" +
                    std::string(what));
    }
    if (arg.find(':') != std::string_view::npos) {
      return Reason(std::string(kind) + ": one parameter expected, got " + QuotedText(arg) +
                    " (fio's center parameter is not supported)");
    }
    auto d = ParseDouble(arg);
    if (!d) return Reason(std::string(kind) + " parameter: " + d.error().message);
    return *d;
  };
  if (kind == "random" && !has_arg) {
    p.random_distribution = RandomDistribution::kRandom;
  } else if (kind == "zipf") {
    auto t = one_number("1.2", 1.1);
    if (!t) return t.error();
    if (!(*t > 0) || *t > 100)
      return Reason("zipf theta must be > 0 (and <= 100), got " + std::string(Trim(arg)));
    // fio refuses 1.0 (its zipf divides by 1 - theta), so a job file with it
    // runs in neither.
    if (*t == 1.0)
      return Reason("zipf theta must not be 1 (fio refuses it too), got " + std::string(Trim(arg)));
    p.random_distribution = RandomDistribution::kZipf;
    p.zipf_theta = *t;
  } else if (kind == "pareto") {
    auto h = one_number("0.2", 0.2);
    if (!h) return h.error();
    if (!(*h > 0 && *h < 1))
      return Reason("pareto h must be > 0 and < 1, got " + std::string(Trim(arg)));
    p.random_distribution = RandomDistribution::kPareto;
    p.pareto_h = *h;
  } else if (kind == "normal" || kind == "gauss") {
    double dev = 0;
    if (has_arg) {
      auto d = one_number("10", 0);
      if (!d) return d.error();
      if (!(*d >= 0 && *d <= 100))
        return Reason("normal deviation must be 0..100 (%), got " + std::string(Trim(arg)));
      dev = *d;
    }
    p.random_distribution = RandomDistribution::kNormal;
    p.normal_dev = dev;
  } else if (kind == "zoned") {
    if (!has_arg || Trim(arg).empty()) {
      return Reason("zoned needs access%/size% pairs, e.g. zoned:60/10:30/20:10/70");
    }
    std::vector<ZoneSpec> zones;
    std::uint32_t access = 0, size = 0, missing = 0;
    std::string_view rest = arg;
    while (true) {
      const std::size_t c = rest.find(':');
      const std::string_view z = Trim(rest.substr(0, c));
      // As fio: "a/s"; a size that is absent, empty or 0 ("a", "a/", "a/0")
      // shares what the given sizes leave, in equal whole percents.
      const std::size_t slash = z.find('/');
      const std::string_view size_text =
          slash == std::string_view::npos ? std::string_view() : Trim(z.substr(slash + 1));
      auto a = ParsePercent(z.substr(0, slash));
      if (!a) return Reason("zoned: entry " + QuotedText(z) + ": access " + a.error().message);
      std::uint32_t s = 0;
      if (!size_text.empty()) {
        auto sp = ParsePercent(size_text);
        if (!sp) return Reason("zoned: entry " + QuotedText(z) + ": size " + sp.error().message);
        s = *sp;
      }
      if (s == 0) ++missing;
      zones.push_back({*a, s});
      access += *a;
      size += s;
      if (zones.size() > 256) return Reason("zoned: at most 256 zones");
      if (c == std::string_view::npos) break;
      rest = rest.substr(c + 1);
    }
    if (missing > 0 && size <= 100) {
      const std::uint32_t share = (100 - size) / missing;
      if (share == 0) {
        return Reason("zoned: " + std::to_string(missing) +
                      " zone(s) without a size % and none left to share (the others take " +
                      std::to_string(size) + "%)");
      }
      for (auto& z : zones) {
        if (z.size_percent == 0) z.size_percent = share;
      }
      size += share * missing;
    }
    if (access != 100)
      return Reason("zoned: access percentages must add up to 100, got " + std::to_string(access));
    if (size > 100)
      return Reason("zoned: size percentages must add up to at most 100, got " +
                    std::to_string(size));
    p.random_distribution = RandomDistribution::kZoned;
    p.zones = std::move(zones);
  } else {
    return Reason("unknown distribution " + QuotedText(v) +
                  " (valid: " + std::string(kDistributionChoices) + ")");
  }
  if (p.random_distribution != RandomDistribution::kZoned) p.zones.clear();
  if (p.random_distribution != RandomDistribution::kZipf) p.zipf_theta = 0;
  if (p.random_distribution != RandomDistribution::kPareto) p.pareto_h = 0;
  if (p.random_distribution != RandomDistribution::kNormal) p.normal_dev = 0;
  return {};
}

Expected<bool> ParseBool(std::string_view text, bool has_value) {
  if (!has_value) return true;
  const std::string_view v = Trim(text);
  if (v == "1" || v == "true") return true;
  if (v == "0" || v == "false") return false;
  return Reason("expected 0 or 1, got " + QuotedText(v));
}

// fio's per-direction form of an option ("8k,32k", ",8k", "8k,32k,"): reads,
// writes, trims; a value not ended by a comma applies to the directions after
// it, an empty one is the default.
struct Directions {
  std::uint64_t read = 0;
  std::uint64_t write = 0;
  std::uint64_t trim = 0;
};

// The comma-separated parts, at most one per direction.
Expected<std::vector<std::string_view>> SplitDirections(std::string_view text, const char* what) {
  std::vector<std::string_view> parts;
  std::string_view rest = Trim(text);
  while (true) {
    const std::size_t comma = rest.find(',');
    parts.push_back(Trim(rest.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (parts.size() > 3) {
    return Reason(std::string("at most three comma-separated ") + what +
                  " (reads, writes, trims), got " + QuotedText(Trim(text)));
  }
  return parts;
}

// An empty field keeps the direction's `current` value (fio: set by an
// earlier line or [global], else the default): "bs=,8k" after a global
// bs=16k reads in 16k.
Expected<Directions> PerDirection(std::string_view text, int kb_base, const Directions& current,
                                  bool allow_zero) {
  auto split = SplitDirections(text, "values");
  if (!split) return split.error();
  const std::vector<std::string_view>& parts = *split;
  std::uint64_t v[3] = {current.read, current.write, current.trim};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty()) {
      if (parts.size() == 1) return Reason("needs a value");
      continue;
    }
    auto n = ParseFioSize(parts[i], kb_base);
    if (!n) return n.error();
    if (!allow_zero && *n == 0) return Reason("must be > 0, got 0");
    v[i] = *n;
    // Not ended by a comma: the value applies to the directions after it.
    if (i + 1 == parts.size()) {
      for (std::size_t k = i + 1; k < 3; ++k) v[k] = *n;
    }
  }
  return Directions{v[0], v[1], v[2]};
}

// Options whose writes and trims share one value in tierlab (rate caps):
// a separate trim value would be silently dropped, so it is refused.
Expected<Directions> ReadWriteDirections(std::string_view text, int kb_base, std::uint64_t read,
                                         std::uint64_t write) {
  auto dirs = PerDirection(text, kb_base, {read, write, write}, /*allow_zero=*/true);
  if (!dirs) return dirs.error();
  if (dirs->trim != dirs->write) {
    return Reason(
        "a trim value (third) different from the write value is not supported: "
        "trims and writes share one cap, got " +
        QuotedText(Trim(text)));
  }
  return dirs;
}

// fio's bsrange form "1k-4k[,2k-8k[,1k-2k]]", per direction as PerDirection.
Expected<void> ParseBsRange(std::string_view text, int kb_base, Profile& p) {
  auto split = SplitDirections(text, "ranges");
  if (!split) return split.error();
  const std::vector<std::string_view>& parts = *split;
  std::uint64_t lo[3] = {4096, 4096, 4096}, hi[3] = {4096, 4096, 4096};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty()) {
      if (parts.size() == 1) return Reason("needs a value");
      continue;
    }
    const std::size_t dash = parts[i].find('-');
    if (dash == std::string_view::npos)
      return Reason("expected MIN-MAX such as 4k-64k, got " + QuotedText(parts[i]));
    auto a = ParseFioSize(parts[i].substr(0, dash), kb_base);
    if (!a) return a.error();
    auto b = ParseFioSize(parts[i].substr(dash + 1), kb_base);
    if (!b) return b.error();
    if (*a == 0 || *b == 0) return Reason("sizes must be > 0, got " + QuotedText(parts[i]));
    // As fio, the two ends may come in either order.
    lo[i] = std::min(*a, *b);
    hi[i] = std::max(*a, *b);
    if (i + 1 == parts.size()) {
      for (std::size_t k = i + 1; k < 3; ++k) lo[k] = lo[i], hi[k] = hi[i];
    }
  }
  p.bs = lo[0];
  p.write_bs = lo[1] == lo[0] ? std::nullopt : std::optional(lo[1]);
  p.trim_bs = lo[2] == lo[1] ? std::nullopt : std::optional(lo[2]);
  for (int d = 0; d < 3; ++d) p.bs_max[d] = hi[d] > lo[d] ? hi[d] : 0;
  return {};
}

std::string FormatBsRange(const Profile& p) {
  std::string out;
  const IoOp ops[3] = {IoOp::kRead, IoOp::kWrite, IoOp::kDiscard};
  for (int d = 0; d < 3; ++d) {
    if (d > 0) out += ',';
    out += FormatFioSize(p.bs_for(ops[d])) + "-" + FormatFioSize(p.max_bs_for(ops[d]));
  }
  return out;
}

// "a,b" of a read/write pair as written by ToJson (null when unset).
nlohmann::json PairJson(std::uint64_t read, std::optional<std::uint64_t> write, bool sizes) {
  auto f = [&](std::uint64_t v) { return sizes ? FormatFioSize(v) : std::to_string(v); };
  if (!write) return sizes ? nlohmann::json(f(read)) : nlohmann::json(read);
  return f(read) + "," + f(*write);
}

std::string RwString(const Profile& p) {
  std::string s(ToString(p.rw));
  if (p.is_random() && p.rw_seq_nr != 1) return s + ":" + std::to_string(p.rw_seq_nr);
  if (!p.is_random() && p.rw_seq_add != 0) {
    const std::uint64_t mag = p.rw_seq_add < 0 ? -static_cast<std::uint64_t>(p.rw_seq_add)
                                               : static_cast<std::uint64_t>(p.rw_seq_add);
    return s + ":" + (p.rw_seq_add < 0 ? "-" : "") + FormatFioSize(mag);
  }
  return s;
}

using Setter = std::function<Expected<void>(Profile&, std::string_view, int)>;
// The profile's field table: parsing (JSON and fio job files), ToJson, the
// "valid" list of errors and docs/CONFIG.md all come from it.
using Writer = nlohmann::json (*)(const Profile&);
struct Option {
  std::string_view name;
  std::string_view type;
  std::string_view unit;  // "" = none
  std::string_view meaning;
  Setter set;
  Writer write;  // null for aliases, which are only read
  // May be given without a value, meaning 1 (fio's FIO_OPT_STR_SET).
  bool bare = false;
};

// A log option's JSON: its NAME ("" for the job's), null when unset.
template <std::optional<std::string> Profile::*kField>
nlohmann::json LogName(const Profile& p) {
  return p.*kField ? nlohmann::json(*(p.*kField)) : nlohmann::json();
}

// A flag written only when set (so that profiles without it read as before).
template <bool Profile::*kField>
nlohmann::json SetFlagJson(const Profile& p) {
  return p.*kField ? nlohmann::json(true) : nlohmann::json();
}

// A time that is written only when it is not 0.
template <Nanos Profile::*kField>
nlohmann::json TimeJsonUnlessZero(const Profile& p) {
  return p.*kField != 0 ? nlohmann::json(FormatFioTime(p.*kField)) : nlohmann::json();
}

// A cmdprio option's "R[,W]" (null when both are 0, the default).
template <std::uint32_t (IoPriorities::*kField)[2]>
nlohmann::json PrioPairJson(const Profile& p) {
  const std::uint32_t* v = p.priorities.*kField;
  if (v[0] == 0 && v[1] == 0) return nullptr;
  if (v[0] == v[1]) return v[0];
  return std::to_string(v[0]) + "," + std::to_string(v[1]);
}

const std::vector<Option>& Options() {
  static const std::vector<Option> kOptions = [] {
    std::vector<Option> o;
    auto rw = [](Profile& p, std::string_view v, int kb) -> Expected<void> {
      static constexpr std::array<std::pair<std::string_view, RwMode>, 11> kModes = {
          {{"read", RwMode::kRead},
           {"write", RwMode::kWrite},
           {"randread", RwMode::kRandRead},
           {"randwrite", RwMode::kRandWrite},
           {"rw", RwMode::kReadWrite},
           {"readwrite", RwMode::kReadWrite},
           {"randrw", RwMode::kRandRw},
           {"trim", RwMode::kTrim},
           {"randtrim", RwMode::kRandTrim},
           {"trimwrite", RwMode::kTrimWrite},
           {"randtrimwrite", RwMode::kRandTrimWrite}}};
      const std::string_view all = Trim(v);
      const std::size_t colon = all.find(':');
      const std::string_view t = Trim(all.substr(0, colon));
      bool found = false;
      for (auto [name, mode] : kModes) {
        if (t == name) {
          p.rw = mode;
          found = true;
        }
      }
      if (!found) {
        return Reason("unknown value " + QuotedText(t) +
                      " (valid: read, write, randread, randwrite, rw, readwrite, randrw, trim, "
                      "randtrim, trimwrite, randtrimwrite, each with an optional :N offset "
                      "modifier)");
      }
      // As fio, every rw= resets the modifier.
      p.rw_seq_nr = 1;
      p.rw_seq_add = 0;
      if (colon == std::string_view::npos) return {};
      const std::string_view mod = Trim(all.substr(colon + 1));
      if (p.is_random()) {
        auto n = ParseRange(mod, 1, 1'000'000'000);
        if (!n) return Reason("offset modifier of " + std::string(t) + ": " + n.error().message);
        p.rw_seq_nr = static_cast<std::uint32_t>(*n);
        return {};
      }
      const bool negative = !mod.empty() && mod.front() == '-';
      auto n = ParseFioSize(negative ? mod.substr(1) : mod, kb);
      if (!n) return Reason("offset modifier of " + std::string(t) + ": " + n.error().message);
      if (*n > (std::uint64_t{1} << 62))
        return Reason("offset modifier of " + std::string(t) + ": too large, got " +
                      QuotedText(mod));
      p.rw_seq_add = negative ? -static_cast<std::int64_t>(*n) : static_cast<std::int64_t>(*n);
      return {};
    };
    o.push_back({"rw",
                 "read | write | randread | randwrite | rw | readwrite | randrw | trim | "
                 "randtrim | trimwrite | randtrimwrite [:N]",
                 "",
                 "I/O pattern (rw and readwrite: mixed sequential; trimwrite: trim a block, then "
                 "write it); :N as fio: random modes take a new offset every N I/Os, sequential "
                 "ones add N bytes to each offset",
                 rw, [](const Profile& p) -> nlohmann::json { return RwString(p); }});
    o.push_back({"readwrite", "as rw", "", "alias of rw", rw, nullptr});
    o.push_back({"rw_sequencer", "sequential | identical", "",
                 "I/Os between random offsets of rw=rand*:N continue sequentially or repeat "
                 "the offset",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t != "sequential" && t != "identical")
                     return Reason("unknown value " + QuotedText(t) +
                                   " (valid: sequential, identical)");
                   p.rw_sequencer_identical = t == "identical";
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   // Written only when set, so that default profiles read as before.
                   return p.rw_sequencer_identical ? nlohmann::json("identical") : nlohmann::json();
                 }});
    o.push_back({"name", "string", "", "job name (fio: the section name)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t.empty()) return Reason("must not be empty");
                   p.name = std::string(t);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json { return p.name; }});
    o.push_back({"rwmixread", "integer 0..100", "%", "share of mixed I/Os that are reads",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParsePercent(v);
                   if (!n) return n.error();
                   p.rwmixread = *n;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json { return p.rwmixread; }});
    o.push_back({"rwmixwrite", "integer 0..100", "%", "100 - rwmixread (sets rwmixread)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParsePercent(v);
                   if (!n) return n.error();
                   p.rwmixread = 100 - *n;
                   return {};
                 },
                 nullptr});
    auto bs = [](Profile& p, std::string_view v, int kb) -> Expected<void> {
      const Directions now{p.bs, p.bs_for(IoOp::kWrite), p.bs_for(IoOp::kDiscard)};
      auto dirs = PerDirection(v, kb, now, /*allow_zero=*/false);
      if (!dirs) return dirs.error();
      // As fio's fixup_options: a direction with a bsrange keeps it, before or
      // after bs (bs only fills a range that is not set).
      if (p.bs_max[0] != 0) dirs->read = now.read;
      if (p.bs_max[1] != 0) dirs->write = now.write;
      if (p.bs_max[2] != 0) dirs->trim = now.trim;
      p.bs = dirs->read;
      p.write_bs = dirs->write == dirs->read ? std::nullopt : std::optional(dirs->write);
      p.trim_bs = dirs->trim == dirs->write ? std::nullopt : std::optional(dirs->trim);
      return {};
    };
    o.push_back({"bs", "fio size, > 0 [,writes[,trims]]", "bytes",
                 "block size of every I/O; \"8k,32k,4k\": reads 8k, writes 32k, trims 4k "
                 "(fio's form)",
                 bs, [](const Profile& p) -> nlohmann::json {
                   std::string s = FormatFioSize(p.bs);
                   if (p.write_bs || p.trim_bs) s += "," + FormatFioSize(p.bs_for(IoOp::kWrite));
                   if (p.trim_bs) s += "," + FormatFioSize(*p.trim_bs);
                   return s;
                 }});
    o.push_back({"blocksize", "as bs", "bytes", "alias of bs", bs, nullptr});
    auto bsrange = [](Profile& p, std::string_view v, int kb) { return ParseBsRange(v, kb, p); };
    o.push_back({"bsrange", "MIN-MAX [,writes[,trims]]", "bytes",
                 "I/O sizes per direction from MIN to MAX in multiples of MIN, as fio "
                 "(sets bs to MIN)",
                 bsrange, [](const Profile& p) -> nlohmann::json {
                   const bool any = p.bs_max[0] != 0 || p.bs_max[1] != 0 || p.bs_max[2] != 0;
                   return any ? nlohmann::json(FormatBsRange(p)) : nlohmann::json();
                 }});
    o.push_back({"blocksize_range", "as bsrange", "bytes", "alias of bsrange", bsrange, nullptr});
    auto ba = [](Profile& p, std::string_view v, int kb) -> Expected<void> {
      auto dirs = PerDirection(v, kb, {p.ba, p.ba, p.ba}, /*allow_zero=*/false);
      if (!dirs) return dirs.error();
      if (dirs->read != dirs->write || dirs->write != dirs->trim) {
        return Reason("one alignment for all directions, got " + QuotedText(Trim(v)) +
                      " (tierlab aligns the random offsets of every direction alike)");
      }
      p.ba = dirs->read;
      return {};
    };
    o.push_back({"ba", "fio size, > 0", "bytes",
                 "alignment of random offsets (default: the smallest block size)", ba,
                 [](const Profile& p) -> nlohmann::json {
                   return p.ba != 0 ? nlohmann::json(FormatFioSize(p.ba)) : nlohmann::json();
                 }});
    o.push_back({"blockalign", "as ba", "bytes", "alias of ba", ba, nullptr});
    o.push_back({"bssplit", "SIZE/PCT[:SIZE/PCT...] [,writes[,trims]]", "bytes, %",
                 "sizes and shares of I/Os, adding up to 100; overrides bs; \"R,W,T\": a "
                 "split per direction",
                 [](Profile& p, std::string_view v, int kb) -> Expected<void> {
                   // fio's str_split_parse: "R" is every direction's; "R,W": trims as writes.
                   auto parts = SplitDirections(v, "splits");
                   if (!parts) return parts.error();
                   std::vector<BsSplitEntry> split[3];
                   for (std::size_t i = 0; i < parts->size(); ++i) {
                     if (auto r = ParseBsSplit((*parts)[i], kb, split[i]); !r) return r.error();
                   }
                   for (std::size_t i = parts->size(); i < 3; ++i) split[i] = split[i - 1];
                   p.bssplit = split[0];
                   p.bssplit_write = split[1] == split[0] ? std::nullopt : std::optional(split[1]);
                   p.bssplit_trim = split[2] == split[1] ? std::nullopt : std::optional(split[2]);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   if (p.bssplit.empty()) return nullptr;
                   std::string s = FormatBsSplit(p.bssplit);
                   if (p.bssplit_write || p.bssplit_trim)
                     s += "," + FormatBsSplit(p.bssplit_for(IoOp::kWrite));
                   if (p.bssplit_trim) s += "," + FormatBsSplit(*p.bssplit_trim);
                   return s;
                 }});
    o.push_back({"iodepth", "integer 1..65536", "requests", "outstanding I/Os per job",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParseRange(v, 1, kMaxIodepth);
                   if (!n) return n.error();
                   p.iodepth = static_cast<std::uint32_t>(*n);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json { return p.iodepth; }});
    o.push_back({"numjobs", "integer 1..4096", "jobs",
                 "concurrent jobs (numjobs x iodepth at most 2^20)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParseRange(v, 1, kMaxNumjobs);
                   if (!n) return n.error();
                   p.numjobs = static_cast<std::uint32_t>(*n);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json { return p.numjobs; }});
    o.push_back({"size", "fio size or N%", "bytes or % of the volume",
                 "region each job covers (default: volume size - offset)",
                 [](Profile& p, std::string_view v, int kb) -> Expected<void> {
                   auto s = ParseSizeSpec(v, kb, /*allow_zero=*/false, /*allow_hundred=*/true);
                   if (!s) return s.error();
                   p.size = *s;
                   p.has_size = true;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.has_size ? nlohmann::json(FormatSizeSpec(p.size)) : nlohmann::json();
                 }});
    o.push_back({"offset", "fio size or N%", "bytes or % of the volume", "start of the region",
                 [](Profile& p, std::string_view v, int kb) -> Expected<void> {
                   auto s = ParseSizeSpec(v, kb, /*allow_zero=*/true, /*allow_hundred=*/false);
                   if (!s) return s.error();
                   p.offset = *s;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json { return FormatSizeSpec(p.offset); }});
    o.push_back(
        {"offset_increment", "fio size or N%", "bytes or % of the volume",
         "job j starts at offset + j x offset_increment",
         [](Profile& p, std::string_view v, int kb) -> Expected<void> {
           auto s = ParseSizeSpec(v, kb, /*allow_zero=*/true, /*allow_hundred=*/false);
           if (!s) return s.error();
           p.offset_increment = *s;
           return {};
         },
         [](const Profile& p) -> nlohmann::json { return FormatSizeSpec(p.offset_increment); }});
    o.push_back({"split_size", "0 | 1 (true | false)", "",
                 "size is shared by the numjobs jobs: job j covers its own size/numjobs from "
                 "offset + j x size/numjobs (not with offset_increment)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto b = ParseBool(v, true);
                   if (!b) return b.error();
                   p.split_size = *b;
                   return {};
                 },
                 // Written only when set, so the JSON (and the matrix cell ids
                 // hashed from it) of every profile without it stays as it was.
                 [](const Profile& p) -> nlohmann::json {
                   return p.split_size ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    // A fio time, read in `bare_unit` without a suffix (seconds for
    // runtime, microseconds for thinktime...).
    auto fio_time = [](Nanos Profile::*field, Nanos bare_unit) {
      return [field, bare_unit](Profile& p, std::string_view v, int) -> Expected<void> {
        auto t = ParseFioTime(v, bare_unit);
        if (!t) return t.error();
        p.*field = *t;
        return {};
      };
    };
    auto us_time = [fio_time](Nanos Profile::*field) { return fio_time(field, kMicro); };
    auto runtime = fio_time(&Profile::runtime, kSecond);
    o.push_back({"runtime", "fio time", "s (bare number)",
                 "cap on the measured run time; the job also ends when its bytes or number_ios "
                 "are done, unless time_based (0: no cap)",
                 runtime,
                 [](const Profile& p) -> nlohmann::json { return FormatFioTime(p.runtime); }});
    o.push_back({"timeout", "as runtime", "s (bare number)", "alias of runtime", runtime, nullptr});
    o.push_back({"time_based", "0 | 1 (true | false)", "",
                 "run for runtime even when the bytes are done, going over the region again",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto b = ParseBool(v, true);
                   if (!b) return b.error();
                   p.time_based = *b;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   // Written only when set, so that other profiles read as before.
                   return p.time_based ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    o.push_back({"loops", "integer 1..1e6", "passes",
                 "do the job's bytes (and number_ios) this many times (not with time_based)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParseRange(v, 1, 1'000'000);
                   if (!n) return n.error();
                   p.loops = static_cast<std::uint32_t>(*n);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.loops != 1 ? nlohmann::json(p.loops) : nlohmann::json();
                 }});
    auto io_size = [](Profile& p, std::string_view v, int kb) -> Expected<void> {
      auto n = ParseFioSize(v, kb);
      if (!n) return n.error();
      p.io_size = *n;
      p.has_io_size = *n != 0;  // fio: 0 = unset
      return {};
    };
    o.push_back({"io_size", "fio size", "bytes",
                 "bytes each job does within its region (default: size; more goes over it again)",
                 io_size, [](const Profile& p) -> nlohmann::json {
                   return p.has_io_size ? nlohmann::json(FormatFioSize(p.io_size))
                                        : nlohmann::json();
                 }});
    o.push_back({"io_limit", "as io_size", "bytes", "alias of io_size", io_size, nullptr});
    o.push_back({"startdelay", "fio time", "s (bare number)",
                 "delay before the section's jobs start (not measured)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   if (Trim(v).find('-') != std::string_view::npos) {
                     return Reason(
                         "fio's random range (a-b) is not supported; give one time, got " +
                         QuotedText(Trim(v)));
                   }
                   auto t = ParseFioTime(v, kSecond);
                   if (!t) return t.error();
                   p.startdelay = *t;
                   return {};
                 },
                 &TimeJsonUnlessZero<&Profile::startdelay>});
    o.push_back({"number_ios", "integer", "I/Os",
                 "stop each job after this many I/Os (0 = no limit; not with time_based)",
                 [](Profile& p, std::string_view v, int kb) -> Expected<void> {
                   auto n = ParseFioSize(v, kb);
                   if (!n) return n.error();
                   p.number_ios = *n;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json { return p.number_ios; }});
    o.push_back({"ramp_time", "fio time", "s (bare number)", "warm-up before measuring",
                 fio_time(&Profile::ramp_time, kSecond),
                 [](const Profile& p) -> nlohmann::json { return FormatFioTime(p.ramp_time); }});
    o.push_back({"random_distribution",
                 "random | zipf:THETA | pareto:H | normal[:DEV%] | zoned:A/S[:A/S...]", "",
                 "popularity of blocks for rand* modes",
                 [](Profile& p, std::string_view v, int) { return ParseDistribution(v, p); },
                 [](const Profile& p) -> nlohmann::json { return RandomDistributionString(p); }});
    o.push_back({"percentage_random", "integer 0..100", "%",
                 "rand* modes: share of I/Os at a random block; the rest continue sequentially",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParsePercent(v);
                   if (!n) return n.error();
                   p.percentage_random = *n;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json { return p.percentage_random; }});
    o.push_back({"percentage_sequential", "integer 0..100", "%",
                 "100 - percentage_random (sets percentage_random)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParsePercent(v);
                   if (!n) return n.error();
                   p.percentage_random = 100 - *n;
                   return {};
                 },
                 nullptr});
    o.push_back({"rate_iops", "integer 0..1e9 [,writes[,trims]]", "IOPS",
                 "per-job cap, all directions together (0 = none), as fio's: a byte rate of "
                 "this many I/Os of the smallest size, so larger sizes come less often; "
                 "\"a,b\": reads, writes (equal on a mixed job)",
                 [](Profile& p, std::string_view v, int kb) -> Expected<void> {
                   auto dirs = ReadWriteDirections(v, kb, p.rate_iops,
                                                   p.rate_iops_write.value_or(p.rate_iops));
                   if (!dirs) return dirs.error();
                   if (dirs->read > 1'000'000'000 || dirs->write > 1'000'000'000)
                     return Reason("must be at most 1000000000, got " + std::string(Trim(v)));
                   p.rate_iops = dirs->read;
                   p.rate_iops_write =
                       dirs->write == dirs->read ? std::nullopt : std::optional(dirs->write);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   if (!p.rate_iops_write) return p.rate_iops;
                   return std::to_string(p.rate_iops) + "," + std::to_string(*p.rate_iops_write);
                 }});
    o.push_back({"rate", "fio size 0.. [,writes[,trims]]", "bytes/s",
                 "per-job cap on bandwidth, all directions together (0 = none; wins over "
                 "rate_iops); \"a,b\": reads, writes (equal on a mixed job)",
                 [](Profile& p, std::string_view v, int kb) -> Expected<void> {
                   auto dirs = ReadWriteDirections(v, kb, p.rate, p.rate_write.value_or(p.rate));
                   if (!dirs) return dirs.error();
                   p.rate = dirs->read;
                   p.rate_write =
                       dirs->write == dirs->read ? std::nullopt : std::optional(dirs->write);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   if (p.rate == 0 && !p.rate_write) return nullptr;
                   return PairJson(p.rate, p.rate_write, /*sizes=*/true);
                 }});
    auto min_pair = [](std::uint64_t(Profile::*field)[2], bool sizes) {
      return [field, sizes](Profile& p, std::string_view v, int kb) -> Expected<void> {
        auto dirs = ReadWriteDirections(v, sizes ? kb : 1000, (p.*field)[0], (p.*field)[1]);
        if (!dirs) return dirs.error();
        (p.*field)[0] = dirs->read;
        (p.*field)[1] = dirs->write;
        return {};
      };
    };
    o.push_back({"rate_min", "fio size 0.. [,writes[,trims]]", "bytes/s",
                 "the run fails (exit 1) when a direction completes less than this over a "
                 "second, after 2 s (fio's check)",
                 min_pair(&Profile::rate_min, true), [](const Profile& p) -> nlohmann::json {
                   if (p.rate_min[0] == 0 && p.rate_min[1] == 0) return nullptr;
                   return PairJson(
                       p.rate_min[0],
                       p.rate_min[1] == p.rate_min[0] ? std::nullopt : std::optional(p.rate_min[1]),
                       /*sizes=*/true);
                 }});
    o.push_back({"rate_process", "linear | poisson", "",
                 "arrivals under rate or rate_iops: evenly spaced, or with exponential gaps of "
                 "the rate's mean",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t != "linear" && t != "poisson")
                     return Reason("unknown value " + QuotedText(t) + " (valid: linear, poisson)");
                   p.rate_poisson = t == "poisson";
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.rate_poisson ? nlohmann::json("poisson") : nlohmann::json();
                 }});
    o.push_back({"ratemin", "as rate_min", "bytes/s", "alias of rate_min",
                 min_pair(&Profile::rate_min, true), nullptr});
    o.push_back({"rate_iops_min", "integer 0.. [,writes[,trims]]", "IOPS",
                 "as rate_min, in I/Os per second", min_pair(&Profile::rate_iops_min, false),
                 [](const Profile& p) -> nlohmann::json {
                   if (p.rate_iops_min[0] == 0 && p.rate_iops_min[1] == 0) return nullptr;
                   return PairJson(p.rate_iops_min[0],
                                   p.rate_iops_min[1] == p.rate_iops_min[0]
                                       ? std::nullopt
                                       : std::optional(p.rate_iops_min[1]),
                                   /*sizes=*/false);
                 }});
    auto count = [](std::uint32_t Profile::*field, std::uint64_t hi) {
      return [field, hi](Profile& p, std::string_view v, int) -> Expected<void> {
        auto n = ParseRange(v, 0, hi);
        if (!n) return n.error();
        p.*field = static_cast<std::uint32_t>(*n);
        return {};
      };
    };
    auto flag = [](bool Profile::*field) {
      return [field](Profile& p, std::string_view v, int) -> Expected<void> {
        auto b = ParseBool(v, true);
        if (!b) return b.error();
        p.*field = *b;
        return {};
      };
    };
    o.push_back({"fsync", "integer 0..1e9", "writes",
                 "a flush in place of the next I/O after every N writes (0: none)",
                 count(&Profile::fsync, 1'000'000'000), [](const Profile& p) -> nlohmann::json {
                   return p.fsync != 0 ? nlohmann::json(p.fsync) : nlohmann::json();
                 }});
    o.push_back({"fdatasync", "integer 0..1e9", "writes", "as fsync (the volume has one flush)",
                 count(&Profile::fdatasync, 1'000'000'000), [](const Profile& p) -> nlohmann::json {
                   return p.fdatasync != 0 ? nlohmann::json(p.fdatasync) : nlohmann::json();
                 }});
    o.push_back({"end_fsync", "0 | 1 (true | false)", "",
                 "a flush when a job that writes has done its I/O", flag(&Profile::end_fsync),
                 [](const Profile& p) -> nlohmann::json {
                   return p.end_fsync ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    o.push_back({"fsync_on_close", "0 | 1 (true | false)", "",
                 "a flush when a job that writes closes the volume (with end_fsync: one)",
                 flag(&Profile::fsync_on_close),
                 [](const Profile& p) -> nlohmann::json {
                   return p.fsync_on_close ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    auto batch = count(&Profile::iodepth_batch, kMaxIodepth);
    o.push_back({"iodepth_batch", "integer 0..65536", "requests",
                 "requests submitted together (0: iodepth; default 1)", batch,
                 [](const Profile& p) -> nlohmann::json {
                   return p.iodepth_batch != 0 ? nlohmann::json(p.iodepth_batch) : nlohmann::json();
                 }});
    o.push_back({"iodepth_batch_submit", "as iodepth_batch", "requests", "alias of iodepth_batch",
                 batch, nullptr});
    auto reap_min = count(&Profile::iodepth_batch_complete_min, kMaxIodepth);
    o.push_back({"iodepth_batch_complete_min", "integer 0..65536", "requests",
                 "completions reaped at least when the queue is full (default 1)", reap_min,
                 [](const Profile& p) -> nlohmann::json {
                   return p.iodepth_batch_complete_min != 1
                              ? nlohmann::json(p.iodepth_batch_complete_min)
                              : nlohmann::json();
                 }});
    o.push_back({"iodepth_batch_complete", "as iodepth_batch_complete_min", "requests",
                 "alias of iodepth_batch_complete_min", reap_min, nullptr});
    o.push_back({"iodepth_batch_complete_max", "integer 0..65536", "requests",
                 "completions reaped at most at a time (default: iodepth_batch_complete_min)",
                 count(&Profile::iodepth_batch_complete_max, kMaxIodepth),
                 [](const Profile& p) -> nlohmann::json {
                   return p.iodepth_batch_complete_max != 0
                              ? nlohmann::json(p.iodepth_batch_complete_max)
                              : nlohmann::json();
                 }});
    o.push_back({"iodepth_low", "integer 0..65536", "requests",
                 "a full queue is refilled once it is down to this (default: iodepth)",
                 count(&Profile::iodepth_low, kMaxIodepth), [](const Profile& p) -> nlohmann::json {
                   return p.iodepth_low != 0 ? nlohmann::json(p.iodepth_low) : nlohmann::json();
                 }});
    o.push_back({"thinktime", "fio time", "us (bare number)",
                 "pause after every thinktime_blocks I/Os, once the queue has drained",
                 us_time(&Profile::thinktime),
                 [](const Profile& p) -> nlohmann::json { return FormatFioTime(p.thinktime); }});
    o.push_back({"thinktime_blocks", "integer 0..2147483647", "I/Os",
                 "I/Os completed (or issued) from one pause to the next (0: a pause after every "
                 "I/O issued)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParseRange(v, 0, 2147483647);
                   if (!n) return n.error();
                   p.thinktime_blocks = static_cast<std::uint32_t>(*n);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   // Written when set, even to 1: with thinktime_iotime that differs
                   // from unset.
                   return p.thinktime_blocks ? nlohmann::json(*p.thinktime_blocks)
                                             : nlohmann::json();
                 }});
    o.push_back({"thinktime_blocks_type", "complete | issue", "",
                 "what thinktime_blocks counts: I/Os completed or issued",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t == "complete") {
                     p.thinktime_blocks_type = ThinkBlocks::kComplete;
                   } else if (t == "issue") {
                     p.thinktime_blocks_type = ThinkBlocks::kIssue;
                   } else {
                     return Reason("unknown value " + QuotedText(t) + " (valid: complete, issue)");
                   }
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.thinktime_blocks_type == ThinkBlocks::kIssue ? nlohmann::json("issue")
                                                                         : nlohmann::json();
                 }});
    o.push_back({"thinktime_spin", "fio time", "us (bare number)",
                 "the busy part of a pause (clamped to thinktime: the pause is thinktime)",
                 us_time(&Profile::thinktime_spin), &TimeJsonUnlessZero<&Profile::thinktime_spin>});
    o.push_back({"thinktime_iotime", "fio time", "s (bare number)",
                 "also pause after this long of I/O (by time only unless thinktime_blocks is set)",
                 fio_time(&Profile::thinktime_iotime, kSecond),
                 &TimeJsonUnlessZero<&Profile::thinktime_iotime>});
    o.push_back({"randseed", "integer", "", "seed of every random stream of the job",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParseUnsigned(v);
                   if (!n) return n.error();
                   p.randseed = *n;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json { return p.randseed; }});
    auto stonewall = [](Profile& p, std::string_view v, int) -> Expected<void> {
      auto b = ParseBool(v, true);
      if (!b) return b.error();
      p.stonewall = *b;
      return {};
    };
    o.push_back({"stonewall", "0 | 1 (true | false)", "",
                 "start this section when every section before it has ended (without it, "
                 "sections start together)",
                 stonewall,
                 [](const Profile& p) -> nlohmann::json {
                   return p.stonewall ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    o.push_back({"wait_for_previous", "as stonewall", "", "alias of stonewall", stonewall, nullptr,
                 /*bare=*/true});
    o.push_back({"wait_for", "section name", "",
                 "start when the section of that name, one before this one, has ended",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t.empty()) return Reason("must not be empty");
                   p.wait_for = std::string(t);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.wait_for.empty() ? nlohmann::json() : nlohmann::json(p.wait_for);
                 }});
    o.push_back({"new_group", "0 | 1 (true | false)", "",
                 "start a new reporting group (groupid) without waiting, as fio",
                 flag(&Profile::new_group),
                 [](const Profile& p) -> nlohmann::json {
                   return p.new_group ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    o.push_back({"exitall", "0 | 1 (true | false)", "",
                 "once any job has it: a job that ends terminates others, as exit_what says",
                 flag(&Profile::exitall),
                 [](const Profile& p) -> nlohmann::json {
                   return p.exitall ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    o.push_back({"exit_what", "group | stonewall | all", "",
                 "under exitall, a job's end terminates the jobs of its groupid, every running "
                 "job, or every job (later sections too)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t == "group") {
                     p.exit_what = ExitWhat::kGroup;
                   } else if (t == "stonewall") {
                     p.exit_what = ExitWhat::kStonewall;
                   } else if (t == "all") {
                     p.exit_what = ExitWhat::kAll;
                   } else {
                     return Reason("unknown value " + QuotedText(t) +
                                   " (valid: group, stonewall, all)");
                   }
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   switch (p.exit_what) {
                     case ExitWhat::kStonewall: return "stonewall";
                     case ExitWhat::kAll: return "all";
                     case ExitWhat::kGroup: break;
                   }
                   return nullptr;
                 }});
    o.push_back({"flow", "integer 0..1000", "",
                 "fio's flow weight: the jobs of one flow_id issue in the ratio of their "
                 "weights (0: no flow control)",
                 count(&Profile::flow, kMaxFlowWeight), [](const Profile& p) -> nlohmann::json {
                   return p.flow != 0 ? nlohmann::json(p.flow) : nlohmann::json();
                 }});
    o.push_back({"flow_id", "integer 0..", "", "the flow a job's weight counts in",
                 count(&Profile::flow_id, std::numeric_limits<std::uint32_t>::max()),
                 [](const Profile& p) -> nlohmann::json {
                   return p.flow_id != 0 ? nlohmann::json(p.flow_id) : nlohmann::json();
                 }});
    o.push_back({"flow_sleep", "fio time", "us (bare number)",
                 "a job held back by flow drains its queue and sleeps this long (0: it waits "
                 "for the other jobs to issue)",
                 us_time(&Profile::flow_sleep), &TimeJsonUnlessZero<&Profile::flow_sleep>});
    auto ss = [](Profile& p, std::string_view v, int kb) -> Expected<void> {
      using M = SteadyStateSpec::Metric;
      static constexpr std::array<std::tuple<std::string_view, M, bool>, 6> kKinds = {
          {{"iops", M::kIops, false},
           {"iops_slope", M::kIops, true},
           {"bw", M::kBw, false},
           {"bw_slope", M::kBw, true},
           {"lat", M::kLat, false},
           {"lat_slope", M::kLat, true}}};
      const std::string_view t = Trim(v);
      const std::size_t colon = t.find(':');
      const std::string_view kind = Trim(t.substr(0, colon));
      SteadyStateSpec& s = p.ss;
      s.snia = kind == "snia";
      if (s.snia) {
        if (colon != std::string_view::npos) return Reason("snia takes no limit");
        s.metric = M::kIops;
        s.slope = false;
        s.percent = true;
        s.limit = 20;
        return {};
      }
      bool found = false;
      for (auto [name, metric, slope] : kKinds) {
        if (kind == name) {
          s.metric = metric;
          s.slope = slope;
          found = true;
        }
      }
      if (!found) {
        return Reason("unknown criterion " + QuotedText(kind) +
                      " (valid: iops, iops_slope, bw, bw_slope, lat, lat_slope, each :LIMIT; "
                      "snia)");
      }
      if (colon == std::string_view::npos) {
        return Reason("needs a limit after the criterion, as fio: " + std::string(kind) +
                      ":LIMIT or :N%");
      }
      std::string_view limit = Trim(t.substr(colon + 1));
      s.percent = !limit.empty() && limit.back() == '%';
      if (s.percent || s.metric == M::kIops) {
        if (s.percent) limit = Trim(limit.substr(0, limit.size() - 1));
        auto d = ParseDouble(limit);
        if (!d || *d < 0) return Reason("limit: not a number >= 0, got " + QuotedText(limit));
        s.limit = *d;
      } else if (s.metric == M::kLat) {
        auto ns = ParseFioTime(limit, kMicro);
        if (!ns) return Reason("limit: " + ns.error().message);
        s.limit = static_cast<double>(*ns);
      } else {
        auto bytes = ParseFioSize(limit, kb);
        if (!bytes) return Reason("limit: " + bytes.error().message);
        s.limit = static_cast<double>(*bytes);
      }
      return {};
    };
    o.push_back({"steadystate",
                 "iops | iops_slope | bw | bw_slope | lat | lat_slope :LIMIT[%] | snia",
                 "IOPS, bytes/s or time (or % of the mean)",
                 "fio's steady-state criterion, checked when ss_dur is set: the section stops "
                 "once the last ss_dur of samples meet it; snia (tierlab's): the SNIA PTS "
                 "criterion on IOPS, which ends the ramp instead",
                 ss, [](const Profile& p) -> nlohmann::json {
                   if (p.ss == SteadyStateSpec{}) return nullptr;
                   return SteadyStateCriterion(p.ss);
                 }});
    o.push_back({"ss", "as steadystate", "", "alias of steadystate", ss, nullptr});
    auto ss_time = [](Nanos SteadyStateSpec::*field) {
      return [field](Profile& p, std::string_view v, int) -> Expected<void> {
        auto t = ParseFioTime(v, kSecond);
        if (!t) return t.error();
        p.ss.*field = *t;
        return {};
      };
    };
    o.push_back({"ss_dur", "fio time", "s (bare number)",
                 "steady state: the window of samples the criterion is checked over (0: none)",
                 ss_time(&SteadyStateSpec::dur), [](const Profile& p) -> nlohmann::json {
                   return p.ss.dur != 0 ? nlohmann::json(FormatFioTime(p.ss.dur))
                                        : nlohmann::json();
                 }});
    o.push_back({"steadystate_duration", "as ss_dur", "s (bare number)", "alias of ss_dur",
                 ss_time(&SteadyStateSpec::dur), nullptr});
    o.push_back({"ss_ramp", "fio time", "s (bare number)",
                 "steady state: samples start one interval after this time from the start",
                 ss_time(&SteadyStateSpec::ramp), [](const Profile& p) -> nlohmann::json {
                   return p.ss.ramp != 0 ? nlohmann::json(FormatFioTime(p.ss.ramp))
                                         : nlohmann::json();
                 }});
    o.push_back({"steadystate_ramp_time", "as ss_ramp", "s (bare number)", "alias of ss_ramp",
                 ss_time(&SteadyStateSpec::ramp), nullptr});
    o.push_back({"ss_interval", "fio time, whole seconds (any with snia)", "s (bare number)",
                 "steady state: one sample per this interval", ss_time(&SteadyStateSpec::interval),
                 [](const Profile& p) -> nlohmann::json {
                   return p.ss.interval != kSecond ? nlohmann::json(FormatFioTime(p.ss.interval))
                                                   : nlohmann::json();
                 }});
    o.push_back({"steadystate_check_interval", "as ss_interval", "s (bare number)",
                 "alias of ss_interval", ss_time(&SteadyStateSpec::interval), nullptr});
    o.push_back({"io_submit_mode", "inline | offload", "",
                 "fio's submission by the job or by other threads: the same I/Os either way",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t != "inline" && t != "offload")
                     return Reason("unknown value " + QuotedText(t) + " (valid: inline, offload)");
                   p.io_submit_offload = t == "offload";
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.io_submit_offload ? nlohmann::json("offload") : nlohmann::json();
                 }});
    o.push_back({"filename", "NAME[:NAME...]", "",
                 "the job's files, each its own region of the volume; one without a size is "
                 "the whole volume (JobFiles.h)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t.empty()) return Reason("must not be empty");
                   p.filename = std::string(t);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.filename.empty() ? nlohmann::json() : nlohmann::json(p.filename);
                 }});
    o.push_back({"directory", "string", "",
                 "where fio would put the job's files: part of their names only",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   p.directory = std::string(Trim(v));
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.directory.empty() ? nlohmann::json() : nlohmann::json(p.directory);
                 }});
    o.push_back({"nrfiles", "integer 1..1024", "files",
                 "files per job (without filename: named JOB.N.F, as fio), each size / nrfiles",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParseRange(v, 1, kMaxNrfiles);
                   if (!n) return n.error();
                   p.nrfiles = static_cast<std::uint32_t>(*n);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.nrfiles != 1 ? nlohmann::json(p.nrfiles) : nlohmann::json();
                 }});
    o.push_back(
        {"filesize", "fio size", "bytes",
         "size of each of the job's files (default: size / nrfiles)",
         [](Profile& p, std::string_view v, int kb) -> Expected<void> {
           if (Trim(v).find('-') != std::string_view::npos) {
             return Reason("fio's random range (a-b) is not supported; give one size, got " +
                           QuotedText(Trim(v)));
           }
           auto n = ParseFioSize(v, kb);
           if (!n) return n.error();
           p.filesize = *n;
           return {};
         },
         [](const Profile& p) -> nlohmann::json {
           return p.filesize != 0 ? nlohmann::json(FormatFioSize(p.filesize)) : nlohmann::json();
         }});
    o.push_back({"verify", "0 | crc32c | md5 | sha256 | ... | null (fio's methods)", "",
                 "read back and check what the job wrote (every method compares every byte; "
                 "null: read back, check nothing)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t == "0") {
                     p.verify.clear();
                     return {};
                   }
                   if (std::find(kVerifyMethods.begin(), kVerifyMethods.end(), t) ==
                       kVerifyMethods.end()) {
                     std::string valid = "0";
                     for (auto m : kVerifyMethods) valid += ", " + std::string(m);
                     return Reason("unknown value " + QuotedText(t) + " (valid: " + valid + ")");
                   }
                   p.verify = std::string(t);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.verify.empty() ? nlohmann::json() : nlohmann::json(p.verify);
                 }});
    o.push_back({"do_verify", "0 | 1 (true | false)", "",
                 "with verify: a job that writes reads it back after its writes",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto b = ParseBool(v, true);
                   if (!b) return b.error();
                   p.do_verify = *b;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.do_verify ? nlohmann::json() : nlohmann::json(false);
                 },
                 /*bare=*/true});
    o.push_back({"verify_fatal", "0 | 1 (true | false)", "",
                 "with verify: a read is checked up to its first bad block (always so in "
                 "tierlab); whether a mismatch ends the job is continue_on_error's",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto b = ParseBool(v, true);
                   if (!b) return b.error();
                   p.verify_fatal = *b;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.verify_fatal ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    o.push_back({"verify_pattern", "fio pattern: 0x.., decimal, \"text\", %o", "",
                 "what a verifying job's writes carry, from each write's first byte (%o: its "
                 "offset); without verify, sets verify=meta",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (auto pat = ParseFioPattern(t, /*allow_offsets=*/true); !pat) {
                     return pat.error();
                   }
                   p.verify_pattern = std::string(t);
                   if (p.verify.empty()) p.verify = "meta";  // fio's: header and pattern
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.verify_pattern.empty() ? nlohmann::json()
                                                   : nlohmann::json(p.verify_pattern);
                 }});
    o.push_back({"verify_interval", "fio size, >= 80", "bytes",
                 "where verify headers start in a write (default: its smallest write)",
                 [](Profile& p, std::string_view v, int kb) -> Expected<void> {
                   auto n = ParseFioSize(v, kb);
                   if (!n) return n.error();
                   // fio's minimum: twice its 40-byte verify header.
                   if (*n < 80) return Reason("must be at least 80, got " + QuotedText(Trim(v)));
                   p.verify_interval = *n;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.verify_interval != 0 ? nlohmann::json(FormatFioSize(p.verify_interval))
                                                 : nlohmann::json();
                 }});
    auto backlog = [](std::uint32_t Profile::*field) {
      return [field](Profile& p, std::string_view v, int kb) -> Expected<void> {
        auto n = ParseFioSize(v, kb);
        if (!n) return n.error();
        if (*n > std::numeric_limits<std::uint32_t>::max())
          return Reason("must be at most 4294967295, got " + QuotedText(Trim(v)));
        p.*field = static_cast<std::uint32_t>(*n);
        return {};
      };
    };
    o.push_back({"verify_backlog", "integer 0..", "writes",
                 "a writing job with verify reads back its writes whenever this many wait "
                 "(0: after its writes)",
                 backlog(&Profile::verify_backlog), [](const Profile& p) -> nlohmann::json {
                   return p.verify_backlog != 0 ? nlohmann::json(p.verify_backlog)
                                                : nlohmann::json();
                 }});
    o.push_back({"verify_backlog_batch", "integer 0..", "writes",
                 "verify_backlog: how many it reads back each time (0: verify_backlog)",
                 backlog(&Profile::verify_backlog_batch), [](const Profile& p) -> nlohmann::json {
                   return p.verify_backlog_batch != 0 ? nlohmann::json(p.verify_backlog_batch)
                                                      : nlohmann::json();
                 }});
    auto data_percent = [](std::uint32_t WriteDataSpec::*field) {
      return [field](Profile& p, std::string_view v, int) -> Expected<void> {
        auto n = ParsePercent(v);
        if (!n) return n.error();
        p.write_data.*field = *n;
        return {};
      };
    };
    auto data_flag = [](bool WriteDataSpec::*field) {
      return [field](Profile& p, std::string_view v, int) -> Expected<void> {
        auto b = ParseBool(v, true);
        if (!b) return b.error();
        p.write_data.*field = *b;
        return {};
      };
    };
    o.push_back({"dedupe_percentage", "integer 0..100", "%",
                 "share of writes whose buffer another write carries too (WriteData.h)",
                 data_percent(&WriteDataSpec::dedupe_percentage),
                 [](const Profile& p) -> nlohmann::json {
                   return p.write_data.dedupe_percentage != 0
                              ? nlohmann::json(p.write_data.dedupe_percentage)
                              : nlohmann::json();
                 }});
    o.push_back({"dedupe_mode", "repeat | working_set", "",
                 "a deduplicable write repeats the next unique buffer, or one of the job's "
                 "working set",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t != "repeat" && t != "working_set")
                     return Reason("unknown value " + QuotedText(t) +
                                   " (valid: repeat, working_set)");
                   p.write_data.dedupe_working_set = t == "working_set";
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.write_data.dedupe_working_set ? nlohmann::json("working_set")
                                                          : nlohmann::json();
                 }});
    o.push_back({"dedupe_working_set_percentage", "integer 0..100", "% of size",
                 "dedupe_mode=working_set: the working set's share of the job's size",
                 data_percent(&WriteDataSpec::dedupe_working_set_percentage),
                 [](const Profile& p) -> nlohmann::json {
                   return p.write_data.dedupe_working_set_percentage != 5
                              ? nlohmann::json(p.write_data.dedupe_working_set_percentage)
                              : nlohmann::json();
                 }});
    o.push_back({"dedupe_global", "0 | 1 (true | false)", "",
                 "dedupe_mode=working_set: one working set spread over the run's jobs",
                 data_flag(&WriteDataSpec::dedupe_global),
                 [](const Profile& p) -> nlohmann::json {
                   return p.write_data.dedupe_global ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    o.push_back({"buffer_compress_percentage", "integer 0..100", "%",
                 "how far the writes' data compresses: each chunk that share of zeros (or "
                 "buffer_pattern) after random bytes",
                 data_percent(&WriteDataSpec::compress_percentage),
                 [](const Profile& p) -> nlohmann::json {
                   return p.write_data.compress_percentage != 0
                              ? nlohmann::json(p.write_data.compress_percentage)
                              : nlohmann::json();
                 }});
    o.push_back({"buffer_compress_chunk", "fio size", "bytes",
                 "buffer_compress_percentage: the chunk (0: the write)",
                 [](Profile& p, std::string_view v, int kb) -> Expected<void> {
                   auto n = ParseFioSize(v, kb);
                   if (!n) return n.error();
                   p.write_data.compress_chunk = *n;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.write_data.compress_chunk != 512
                              ? nlohmann::json(FormatFioSize(p.write_data.compress_chunk))
                              : nlohmann::json();
                 }});
    o.push_back({"buffer_pattern", "fio pattern: 0x.., decimal, \"text\"", "",
                 "what the writes carry (or their compressible part)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (auto pat = ParseFioPattern(t, /*allow_offsets=*/false); !pat) {
                     return pat.error();
                   }
                   p.write_data.pattern = std::string(t);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.write_data.pattern.empty() ? nlohmann::json()
                                                       : nlohmann::json(p.write_data.pattern);
                 }});
    o.push_back({"zero_buffers", "0 | 1 (true | false)", "", "the writes carry zeros",
                 data_flag(&WriteDataSpec::zero_buffers),
                 [](const Profile& p) -> nlohmann::json {
                   return p.write_data.zero_buffers ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    // fio's per-direction integers of the cmdprio options: "R[,W]".
    auto prio_pair = [](std::uint32_t(IoPriorities::*field)[2], std::uint64_t lo,
                        std::uint64_t hi) {
      return [field, lo, hi](Profile& p, std::string_view v, int) -> Expected<void> {
        auto parts = SplitDirections(v, "values");
        if (!parts) return parts.error();
        if (parts->size() > 2)
          return Reason("one value, or reads,writes; got " + QuotedText(Trim(v)));
        std::uint32_t out[2];
        for (std::size_t i = 0; i < parts->size(); ++i) {
          auto n = ParseRange((*parts)[i], lo, hi);
          if (!n) return n.error();
          out[i] = static_cast<std::uint32_t>(*n);
        }
        if (parts->size() == 1) out[1] = out[0];
        std::copy(out, out + 2, p.priorities.*field);
        return {};
      };
    };
    auto job_prio = [](std::int32_t IoPriorities::*field, std::uint64_t hi) {
      return [field, hi](Profile& p, std::string_view v, int) -> Expected<void> {
        auto n = ParseRange(v, 0, hi);
        if (!n) return n.error();
        p.priorities.*field = static_cast<std::int32_t>(*n);
        return {};
      };
    };
    o.push_back({"prio", "integer 0..7", "", "the job's I/O priority level (0 highest)",
                 job_prio(&IoPriorities::prio, 7), [](const Profile& p) -> nlohmann::json {
                   return p.priorities.prio >= 0 ? nlohmann::json(p.priorities.prio)
                                                 : nlohmann::json();
                 }});
    o.push_back({"prioclass", "integer 0..3", "",
                 "the job's I/O priority class (1 RT, 2 BE, 3 IDLE; 0 with prio: BE)",
                 job_prio(&IoPriorities::prioclass, 3), [](const Profile& p) -> nlohmann::json {
                   return p.priorities.prioclass >= 0 ? nlohmann::json(p.priorities.prioclass)
                                                      : nlohmann::json();
                 }});
    o.push_back({"cmdprio_percentage", "integer 0..100 [,writes]", "%",
                 "share of I/Os issued with cmdprio_class and cmdprio",
                 prio_pair(&IoPriorities::cmdprio_percentage, 0, 100),
                 &PrioPairJson<&IoPriorities::cmdprio_percentage>});
    o.push_back({"cmdprio_class", "integer 1..3 [,writes]", "",
                 "the class of cmdprio's I/Os (default RT)",
                 prio_pair(&IoPriorities::cmdprio_class, 1, 3),
                 &PrioPairJson<&IoPriorities::cmdprio_class>});
    o.push_back({"cmdprio", "integer 0..7 [,writes]", "", "the level of cmdprio's I/Os",
                 prio_pair(&IoPriorities::cmdprio, 0, 7), &PrioPairJson<&IoPriorities::cmdprio>});
    o.push_back({"cmdprio_bssplit", "BS/PCT[/CLASS/LEVEL[/HINT]][:...] [,writes]", "bytes, %",
                 "per I/O size, the share issued with a priority (not with cmdprio_percentage)",
                 [](Profile& p, std::string_view v, int kb) {
                   return ParseCmdPrioBssplit(v, kb, p.priorities);
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.priorities.cmdprio_bssplit_given
                              ? nlohmann::json(CmdPrioBssplitText(p.priorities))
                              : nlohmann::json();
                 }});
    o.push_back({"log_prio", "0 | 1 (true | false)", "",
                 "logs: each I/O's priority value (0x...) in place of 1 for RT, 0 otherwise",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto b = ParseBool(v, true);
                   if (!b) return b.error();
                   p.priorities.log_prio = *b;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.priorities.log_prio ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    o.push_back({"atomic", "0 | 1 (true | false)", "",
                 "writes with torn-write protection (RWF_ATOMIC): each a power of two bytes at "
                 "an offset it divides, else EINVAL",
                 flag(&Profile::atomic), &SetFlagJson<&Profile::atomic>,
                 /*bare=*/true});
    o.push_back({"verify_write_sequence", "0 | 1 (true | false)", "",
                 "0: a block another write was landing on while it was read is not checked "
                 "(fio checks no write sequence then)",
                 flag(&Profile::verify_write_sequence),
                 [](const Profile& p) -> nlohmann::json {
                   return p.verify_write_sequence ? nlohmann::json() : nlohmann::json(false);
                 },
                 /*bare=*/true});
    o.push_back({"continue_on_error", "none | read | write | io | verify | all | 0 | 1", "",
                 "errors a job goes on after (EIO and EILSEQ, or ignore_error's); any other "
                 "error ends the job (none: the first)",
                 [](Profile& p, std::string_view v, int) {
                   return ParseContinueOnError(v, p.continue_on_error);
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.continue_on_error.any()
                              ? nlohmann::json(ContinueOnErrorText(p.continue_on_error))
                              : nlohmann::json();
                 }});
    o.push_back({"ignore_error", "READ_ERRS[,WRITE_ERRS[,VERIFY_ERRS]]", "",
                 "per error type, the errors (EIO:ENOSPC or numbers, ':'-separated) a job "
                 "goes on after, in place of EIO and EILSEQ",
                 [](Profile& p, std::string_view v, int) {
                   return ParseIgnoreError(v, p.continue_on_error);
                 },
                 [](const Profile& p) -> nlohmann::json {
                   const std::string t = IgnoreErrorText(p.continue_on_error);
                   return t.empty() ? nlohmann::json() : nlohmann::json(t);
                 }});
    o.push_back({"latency_target", "fio time", "us (bare number)",
                 "find the deepest queue, up to iodepth, whose I/Os meet this latency (0: off)",
                 us_time(&Profile::latency_target), &TimeJsonUnlessZero<&Profile::latency_target>});
    o.push_back({"latency_window", "fio time", "us (bare number)",
                 "latency_target: how long each queue depth is tried",
                 us_time(&Profile::latency_window), &TimeJsonUnlessZero<&Profile::latency_window>});
    o.push_back({"latency_percentile", "number 0..100", "%",
                 "latency_target: the share of I/Os that must meet it",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto d = ParseDouble(v);
                   if (!d || *d < 0 || *d > 100)
                     return Reason("must be a number 0..100, got " + QuotedText(Trim(v)));
                   p.latency_percentile = *d;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.latency_percentile != 100 ? nlohmann::json(p.latency_percentile)
                                                      : nlohmann::json();
                 }});
    o.push_back({"latency_run", "0 | 1 (true | false)", "",
                 "latency_target: keep adjusting the depth to the end (0: stop once found)",
                 flag(&Profile::latency_run), &SetFlagJson<&Profile::latency_run>,
                 /*bare=*/true});
    o.push_back({"fill_device", "0 | 1 (true | false)", "",
                 "a write's ENOSPC (no space) ends the job without an error",
                 flag(&Profile::fill_device), &SetFlagJson<&Profile::fill_device>,
                 /*bare=*/true});
    o.push_back({"fill_fs", "as fill_device", "", "alias of fill_device",
                 flag(&Profile::fill_device), nullptr, /*bare=*/true});
    o.push_back({"norandommap", "0 | 1 (true | false)", "",
                 "uniform random offsets with repeats (0: fio's random map, each block once "
                 "per pass)",
                 flag(&Profile::norandommap), &SetFlagJson<&Profile::norandommap>,
                 /*bare=*/true});
    o.push_back({"random_generator", "tausworthe | lfsr | tausworthe64", "",
                 "lfsr: every block once per pass with no map (I/Os never cut, with or "
                 "without norandommap); the others: tierlab's own generator",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   if (t != "tausworthe" && t != "lfsr" && t != "tausworthe64") {
                     return Reason("must be tausworthe, lfsr or tausworthe64, got " +
                                   QuotedText(t));
                   }
                   p.random_generator_lfsr = t == "lfsr";
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.random_generator_lfsr ? nlohmann::json("lfsr") : nlohmann::json();
                 }});
    o.push_back({"random_scatter", "0 | 1 (true | false)", "",
                 "spread zipf/pareto/normal ranks over the region (0: hottest blocks first)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto b = ParseBool(v, true);
                   if (!b) return b.error();
                   p.random_scatter = *b;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json { return p.random_scatter; },
                 /*bare=*/true});
    o.push_back({"precondition", "none | fill | random[:SIZE]", "",
                 "preparation before the job, per job region: fill writes every block once, "
                 "sequentially; random overwrites SIZE bytes (default: the region) at random",
                 [](Profile& p, std::string_view v, int kb_base) -> Expected<void> {
                   const std::string_view t = Trim(v);
                   p.precondition_bytes = 0;
                   if (t == "none") {
                     p.precondition = Precondition::kNone;
                   } else if (t == "fill") {
                     p.precondition = Precondition::kFill;
                   } else if (t == "random" || t.starts_with("random:")) {
                     p.precondition = Precondition::kRandom;
                     if (t.size() > 6) {
                       auto bytes = ParseFioSize(t.substr(7), kb_base);
                       if (!bytes) return Reason("random:SIZE: " + bytes.error().message);
                       if (*bytes == 0) return Reason("random:SIZE: must be > 0");
                       p.precondition_bytes = *bytes;
                     }
                   } else {
                     return Reason("unknown value " + QuotedText(t) +
                                   " (valid: none, fill, random, random:SIZE)");
                   }
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   if (p.precondition == Precondition::kNone) return nlohmann::json();
                   return PreconditionString(p);
                 }});
    // tierlab's keyword options of two values, `off` (the default) or `on`.
    auto two_values = [](std::string_view off, std::string_view on, bool Profile::*field) {
      return [=](Profile& p, std::string_view v, int) -> Expected<void> {
        const std::string_view t = Trim(v);
        if (t != off && t != on) {
          return Reason("unknown value " + QuotedText(t) + " (valid: " + std::string(off) + ", " +
                        std::string(on) + ")");
        }
        p.*field = t == on;
        return {};
      };
    };
    o.push_back({"warmup", "none | fast", "",
                 "fast: the job's own stream warms the cache and tier state with no timing "
                 "until it converges, before ramp_time",
                 two_values("none", "fast", &Profile::warmup_fast),
                 [](const Profile& p) -> nlohmann::json {
                   return p.warmup_fast ? nlohmann::json("fast") : nlohmann::json();
                 }});
    o.push_back({"ss_leave", "report | stop", "",
                 "with ss=snia: when the rounds stop meeting the criterion during the measured "
                 "window, report when (the default) or also end the job there",
                 two_values("report", "stop", &Profile::ss_leave_stop),
                 [](const Profile& p) -> nlohmann::json {
                   return p.ss_leave_stop ? nlohmann::json("stop") : nlohmann::json();
                 }});
    // fio's logs (bench/lab/FioLogs.h): NAME, or the job's name without one.
    auto log = [](std::optional<std::string> Profile::*field) {
      return [field](Profile& p, std::string_view v, int) -> Expected<void> {
        p.*field = std::string(Trim(v));
        return {};
      };
    };
    o.push_back({"write_bw_log", "file name prefix", "",
                 "write NAME_bw.N.log, fio's bandwidth log (no NAME: the job's name)",
                 log(&Profile::write_bw_log), &LogName<&Profile::write_bw_log>, /*bare=*/true});
    o.push_back({"write_iops_log", "file name prefix", "",
                 "write NAME_iops.N.log, fio's IOPS log (no NAME: the job's name)",
                 log(&Profile::write_iops_log), &LogName<&Profile::write_iops_log>, /*bare=*/true});
    o.push_back({"write_lat_log", "file name prefix", "",
                 "write NAME_lat.N.log, NAME_clat.N.log and NAME_slat.N.log, fio's latency "
                 "logs (no NAME: the job's name)",
                 log(&Profile::write_lat_log), &LogName<&Profile::write_lat_log>, /*bare=*/true});
    o.push_back({"log_avg_msec", "integer 0..1e9", "ms",
                 "logs: one entry per direction per this many ms, averaged (0: one per I/O)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto n = ParseRange(v, 0, 1'000'000'000);
                   if (!n) return n.error();
                   p.log_avg_msec = static_cast<std::uint32_t>(*n);
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.log_avg_msec != 0 ? nlohmann::json(p.log_avg_msec) : nlohmann::json();
                 }});
    o.push_back({"log_offset", "0 | 1 (true | false)", "",
                 "logs: add each I/O's offset (0 in averaged entries)",
                 [](Profile& p, std::string_view v, int) -> Expected<void> {
                   auto b = ParseBool(v, true);
                   if (!b) return b.error();
                   p.log_offset = *b;
                   return {};
                 },
                 [](const Profile& p) -> nlohmann::json {
                   return p.log_offset ? nlohmann::json(true) : nlohmann::json();
                 },
                 /*bare=*/true});
    return o;
  }();
  return kOptions;
}

// Options whose value may contain ',': free text, and the per-direction
// forms tierlab follows.
bool AllowsComma(std::string_view key) {
  for (std::string_view k : {"name",
                             "bs",
                             "blocksize",
                             "bssplit",
                             "rate_iops",
                             "filename",
                             "directory",
                             "rate",
                             "rate_min",
                             "cmdprio_percentage",
                             "cmdprio_class",
                             "cmdprio",
                             "cmdprio_bssplit",
                             "ratemin",
                             "rate_iops_min",
                             "bsrange",
                             "blocksize_range",
                             "ba",
                             "blockalign",
                             "ignore_error"}) {
    if (key == k) return true;
  }
  return false;
}

}  // namespace

std::uint64_t SizeSpec::Resolve(std::uint64_t volume_bytes, std::uint64_t align) const {
  if (!is_percent) return bytes;
  const auto v =
      static_cast<std::uint64_t>(static_cast<long double>(volume_bytes) * percent / 100.0L);
  return align > 0 ? v / align * align : v;
}

std::uint64_t SplitSizePart(const Profile& p, std::uint64_t volume_bytes, std::uint64_t align) {
  const std::uint64_t begin = std::min(p.offset.Resolve(volume_bytes, align), volume_bytes);
  const std::uint64_t total =
      p.has_size ? p.size.Resolve(volume_bytes, align) : volume_bytes - begin;
  const std::uint64_t part = total / std::max<std::uint32_t>(p.numjobs, 1);
  return align > 0 ? part / align * align : part;
}

std::uint32_t Profile::read_percent() const {
  switch (rw) {
    case RwMode::kRead:
    case RwMode::kRandRead: return 100;
    case RwMode::kReadWrite:
    case RwMode::kRandRw: return rwmixread;
    default: return 0;
  }
}

bool Profile::does(IoOp op) const {
  switch (op) {
    case IoOp::kRead: return read_percent() > 0;
    case IoOp::kWrite:
      return rw == RwMode::kWrite || rw == RwMode::kRandWrite || is_trimwrite() ||
             (is_mixed() && rwmixread < 100);
    case IoOp::kDiscard: return rw == RwMode::kTrim || rw == RwMode::kRandTrim || is_trimwrite();
    case IoOp::kFlush: return false;
  }
  return false;
}

std::uint64_t Profile::verify_interval_bytes() const {
  std::uint64_t lo = bs_for(IoOp::kWrite), hi = max_bs_for(IoOp::kWrite);
  std::uint64_t read_lo = bs_for(IoOp::kRead);
  if (!bssplit.empty()) {
    lo = UINT64_MAX, hi = 0, read_lo = UINT64_MAX;
    for (const auto& e : bssplit_for(IoOp::kWrite))
      lo = std::min(lo, e.bs), hi = std::max(hi, e.bs);
    for (const auto& e : bssplit) read_lo = std::min(read_lo, e.bs);
  }
  // fio's fixups (init.c): a range defaults to its smallest size; at most
  // the smallest write (or read, for a job that reads); a size that does
  // not divide the writes' becomes their gcd.
  std::uint64_t v = verify_interval != 0 ? verify_interval : (hi != lo ? lo : 0);
  if (v > lo) {
    v = lo;
  } else if (read_percent() > 0 && v > read_lo) {
    v = read_lo;
  }
  if (v == 0 || lo % v != 0 || hi % v != 0) v = std::gcd(lo, hi);
  return v;
}

std::uint64_t Profile::max_bs_for(IoOp op) const {
  const std::uint64_t lo = bs_for(op);
  const std::uint64_t hi = bs_max[op == IoOp::kRead ? 0 : op == IoOp::kWrite ? 1 : 2];
  return std::max(lo, hi);
}

namespace {

// Smallest and largest I/O of the directions the job does.
std::pair<std::uint64_t, std::uint64_t> BsRange(const Profile& p) {
  std::uint64_t lo = UINT64_MAX, hi = 0;
  auto add = [&](std::uint64_t v) { lo = std::min(lo, v), hi = std::max(hi, v); };
  for (IoOp op : {IoOp::kRead, IoOp::kWrite, IoOp::kDiscard}) {
    if (!p.does(op)) continue;
    if (!p.bssplit.empty()) {
      for (const auto& e : p.bssplit_for(op)) add(e.bs);
      continue;
    }
    add(p.bs_for(op));
    add(p.max_bs_for(op));
  }
  return {lo, hi};
}

}  // namespace

std::uint64_t Profile::min_bs() const {
  return BsRange(*this).first;
}

std::uint64_t Profile::max_bs() const {
  return BsRange(*this).second;
}

bool Profile::ba_turns_off_random_map() const {
  if (ba == 0) return false;
  for (IoOp op : {IoOp::kRead, IoOp::kWrite, IoOp::kDiscard}) {
    const std::vector<BsSplitEntry>& split = bssplit_for(op);
    const std::uint64_t min =
        split.empty()
            ? bs_for(op)
            : std::min_element(split.begin(), split.end(), [](const auto& a, const auto& b) {
                return a.bs < b.bs;
              })->bs;
    if (ba != min) return true;
  }
  return false;
}

std::uint64_t Profile::effective_rate_iops() const {
  return read_percent() == 0 ? rate_iops_write.value_or(rate_iops) : rate_iops;
}

std::uint64_t Profile::effective_rate() const {
  return read_percent() == 0 ? rate_write.value_or(rate) : rate;
}

std::uint64_t Profile::rate_bps() const {
  if (effective_rate() != 0) return effective_rate();  // rate wins, as fio
  const std::uint64_t iops = effective_rate_iops();
  if (iops == 0) return 0;
  const std::uint64_t bs = min_bs();
  return iops > UINT64_MAX / bs ? UINT64_MAX : iops * bs;
}

std::string PreconditionString(const Profile& p) {
  switch (p.precondition) {
    case Precondition::kNone: return "none";
    case Precondition::kFill: return "fill";
    case Precondition::kRandom:
      return p.precondition_bytes == 0 ? "random" : "random:" + FormatFioSize(p.precondition_bytes);
  }
  return "none";
}

std::string SteadyStateCriterion(const SteadyStateSpec& s) {
  using M = SteadyStateSpec::Metric;
  if (s.snia) return "snia";
  std::string out = s.metric == M::kIops ? "iops" : s.metric == M::kBw ? "bw" : "lat";
  if (s.slope) out += "_slope";
  out += ':';
  if (s.percent || s.metric == M::kIops) {
    std::ostringstream v;
    v << s.limit;  // shortest form that reads back
    out += v.str();
    if (s.percent) out += '%';
  } else if (s.metric == M::kLat) {
    out += FormatFioTime(static_cast<Nanos>(s.limit));
  } else {
    out += FormatFioSize(static_cast<std::uint64_t>(s.limit));
  }
  return out;
}

std::string_view ToString(RwMode rw) {
  switch (rw) {
    case RwMode::kRead: return "read";
    case RwMode::kWrite: return "write";
    case RwMode::kRandRead: return "randread";
    case RwMode::kRandWrite: return "randwrite";
    case RwMode::kReadWrite: return "rw";
    case RwMode::kRandRw: return "randrw";
    case RwMode::kTrim: return "trim";
    case RwMode::kRandTrim: return "randtrim";
    case RwMode::kTrimWrite: return "trimwrite";
    case RwMode::kRandTrimWrite: return "randtrimwrite";
  }
  return "read";
}

std::string RandomDistributionString(const Profile& p) {
  switch (p.random_distribution) {
    case RandomDistribution::kRandom: return "random";
    case RandomDistribution::kZipf: return "zipf:" + FormatDouble(p.zipf_theta);
    case RandomDistribution::kPareto: return "pareto:" + FormatDouble(p.pareto_h);
    case RandomDistribution::kNormal:
      return p.normal_dev > 0 ? "normal:" + FormatDouble(p.normal_dev) : "normal";
    case RandomDistribution::kZoned: {
      std::string s = "zoned";
      for (const auto& z : p.zones) {
        s += ":" + std::to_string(z.access_percent) + "/" + std::to_string(z.size_percent);
      }
      return s;
    }
  }
  return "random";
}

const std::vector<std::string_view>& SupportedOptionNames() {
  static const std::vector<std::string_view> kNames = [] {
    std::vector<std::string_view> v;
    for (const auto& o : Options()) v.push_back(o.name);
    v.push_back("kb_base");
    return v;
  }();
  return kNames;
}

std::string_view RefusalReason(std::string_view key) {
  for (auto [name, reason] : kRefusedWithReason) {
    if (name == key) return reason;
  }
  return {};
}

const std::vector<std::string_view>& IgnoredOptionNames() {
  static const std::vector<std::string_view> kNames(kIgnoredFioOptions.begin(),
                                                    kIgnoredFioOptions.end());
  return kNames;
}

Expected<OptionResult> SetProfileOption(Profile& p, std::string_view key, std::string_view value,
                                        bool has_value, int kb_base) {
  const auto prefix = [&](const Error& e) {
    return MakeError(std::string(key) + ": " + e.message);
  };
  for (const auto& o : Options()) {
    if (o.name != key) continue;
    const bool log_name =
        key == "write_bw_log" || key == "write_iops_log" || key == "write_lat_log";
    if (!has_value && !o.bare) return prefix(Reason("needs a value"));
    if (!AllowsComma(key) && value.find(',') != std::string_view::npos) {
      return prefix(
          Reason("per-direction values (reads,writes) are supported only for bs, bsrange, "
                 "bssplit, ba, rate, rate_min, rate_iops, rate_iops_min, ignore_error and the "
                 "cmdprio options; give one value, "
                 "got " +
                 QuotedText(Trim(value))));
    }
    auto r = o.set(p, has_value ? value : std::string_view(log_name ? "" : "1"), kb_base);
    if (!r) return prefix(r.error());
    return OptionResult::kApplied;
  }
  if (key == "kb_base") {
    const std::string_view t = Trim(value);
    if (t != "1024" && t != "1000")
      return prefix(Reason("must be 1024 or 1000, got " + QuotedText(t)));
    return OptionResult::kApplied;  // the caller applies it to later options
  }
  if (key == "ioengine") {
    // Ignored, as tierlab issues its own asynchronous direct I/O; but only
    // for engines whose I/O is block I/O. A job for fio's network, HTTP,
    // file-creation or CPU engines means something tierlab does not do.
    const std::string_view t = Trim(value);
    if (std::find(kBlockIoEngines.begin(), kBlockIoEngines.end(), t) == kBlockIoEngines.end()) {
      std::string valid;
      for (auto e : kBlockIoEngines) valid += (valid.empty() ? "" : ", ") + std::string(e);
      return prefix(Reason(QuotedText(t) +
                           " is not a block I/O engine; tierlab runs block I/O on "
                           "its volume (valid: " +
                           valid + ")"));
    }
  }
  for (auto name : kIgnoredFioOptions) {
    if (name == key) return OptionResult::kIgnored;
  }
  return OptionResult::kUnknown;
}

Expected<void> ValidateProfile(const Profile& p) {
  auto fail = [](std::string m) { return MakeError(std::move(m)); };
  if (p.name.empty()) return fail("name: must not be empty");
  if (p.rwmixread > 100)
    return fail("rwmixread: must be 0..100, got " + std::to_string(p.rwmixread));
  if (p.bs == 0 || (p.write_bs && *p.write_bs == 0) || (p.trim_bs && *p.trim_bs == 0))
    return fail("bs: must be > 0, got 0");
  if (!p.bssplit.empty() && (p.bs_max[0] != 0 || p.bs_max[1] != 0 || p.bs_max[2] != 0))
    return fail("bsrange: give bssplit or bsrange, not both");
  if (p.is_mixed() && p.rate_write && *p.rate_write != p.rate) {
    return fail("rate: separate caps for reads and writes (" + std::to_string(p.rate) + "," +
                std::to_string(*p.rate_write) +
                ") on a mixed job are not supported: tierlab caps all its I/Os together");
  }
  if (p.batched_reaping() &&
      (p.effective_rate() != 0 || p.effective_rate_iops() != 0 || p.thinktime != 0)) {
    return fail(
        "iodepth_low: batched reaping (iodepth_low, iodepth_batch_complete_min/max) with rate, "
        "rate_iops or thinktime is not supported: fio drains its queue there");
  }
  if (p.thinktime != 0 && (p.effective_rate() != 0 || p.effective_rate_iops() != 0)) {
    return fail(
        "thinktime: with rate or rate_iops is not supported: tierlab's rate is a schedule of "
        "arrivals, which a pause would not hold back as fio's does");
  }
  if (p.latency_target != 0 && (p.effective_rate() != 0 || p.effective_rate_iops() != 0 ||
                                p.thinktime != 0 || p.batched_reaping())) {
    return fail(
        "latency_target: with rate, rate_iops, thinktime or batched reaping (iodepth_low, "
        "iodepth_batch_complete_min/max) is not supported: tierlab searches the depth of a "
        "closed loop");
  }
  if (auto v = ValidateIoPriorities(p.priorities); !v) return v.error();
  if (const WriteDataSpec& d = p.write_data; d.dedupe_percentage != 0 && d.dedupe_working_set) {
    // fio's checks of a pregenerated working set.
    if (!p.has_size) return fail("dedupe_mode: working_set needs the job's size");
    if (p.nrfiles != 1 || p.filename.find(':') != std::string::npos)
      return fail("dedupe_mode: working_set needs a single file per job");
    if (d.dedupe_working_set_percentage + d.dedupe_percentage > 100) {
      return fail("dedupe_working_set_percentage: " +
                  std::to_string(d.dedupe_working_set_percentage) + " % of unique buffers and " +
                  std::to_string(d.dedupe_percentage) + " % of deduplicable writes exceed 100 %");
    }
  }
  if (p.verify == "pattern" && p.verify_pattern.empty())
    return fail("verify: pattern needs verify_pattern (the bytes to check)");
  if (p.rw_seq_nr == 0) return fail("rw: offset modifier must be >= 1");
  if (p.split_size && (p.offset_increment.bytes != 0 || p.offset_increment.percent != 0)) {
    return fail(
        "offset_increment: not with split_size, which starts each job where the one before "
        "it ends (offset + j x size/numjobs)");
  }
  if (p.ss_leave_stop && !(p.ss.snia && p.ss.dur != 0)) {
    return fail("ss_leave: stop needs ss=snia and ss_dur");
  }
  if (p.ss.dur != 0 && p.ss.snia) {
    // tierlab's criterion: any interval, a window of whole intervals.
    if (p.ss.interval <= 0) return fail("ss_interval: must be > 0");
    if (p.ss.dur % p.ss.interval != 0 || p.ss.dur / p.ss.interval < 2) {
      return fail("ss_dur: with ss=snia, a whole number (at least two) of ss_interval, got " +
                  FormatFioTime(p.ss.dur) + " of " + FormatFioTime(p.ss.interval));
    }
  } else if (p.ss.dur != 0) {
    // fio counts the window in whole seconds of whole-second intervals.
    if (p.ss.interval < kSecond || p.ss.interval % kSecond != 0) {
      return fail("ss_interval: must be a whole number of seconds, got " +
                  FormatFioTime(p.ss.interval));
    }
    if (p.ss.dur / kSecond / (p.ss.interval / kSecond) < 2) {
      return fail("ss_dur: must hold at least two ss_interval samples, got " +
                  FormatFioTime(p.ss.dur) + " of " + FormatFioTime(p.ss.interval));
    }
  }
  if (p.rate_poisson && p.effective_rate() != 0 && p.effective_rate() < p.min_bs()) {
    return fail("rate_process: poisson needs a rate of at least one I/O per second (rate " +
                std::to_string(p.effective_rate()) + " B/s, I/Os of " + std::to_string(p.min_bs()) +
                " bytes)");
  }
  if (p.is_mixed() && p.rate_iops_write && *p.rate_iops_write != p.rate_iops) {
    return fail("rate_iops: separate caps for reads and writes (" + std::to_string(p.rate_iops) +
                "," + std::to_string(*p.rate_iops_write) +
                ") on a mixed job are not supported: tierlab caps all its I/Os together");
  }
  for (IoOp op : {IoOp::kRead, IoOp::kWrite, IoOp::kDiscard}) {
    const std::vector<BsSplitEntry>& split = p.bssplit_for(op);
    if (split.empty() != p.bssplit.empty()) return fail("bssplit: one split per direction");
    if (split.empty()) continue;
    std::uint32_t total = 0;
    for (const auto& e : split) {
      if (e.bs == 0) return fail("bssplit: block size must be > 0");
      total += e.percent;
    }
    if (total != 100)
      return fail("bssplit: percentages must add up to 100, got " + std::to_string(total));
  }
  if (p.iodepth < 1 || p.iodepth > kMaxIodepth) {
    return fail("iodepth: must be 1.." + std::to_string(kMaxIodepth) + ", got " +
                std::to_string(p.iodepth));
  }
  if (p.numjobs < 1 || p.numjobs > kMaxNumjobs) {
    return fail("numjobs: must be 1.." + std::to_string(kMaxNumjobs) + ", got " +
                std::to_string(p.numjobs));
  }
  if (std::uint64_t{p.numjobs} * p.iodepth > kMaxOutstandingRequests) {
    return fail(
        "iodepth: numjobs " + std::to_string(p.numjobs) + " x iodepth " +
        std::to_string(p.iodepth) + " = " + std::to_string(std::uint64_t{p.numjobs} * p.iodepth) +
        " outstanding requests; a run keeps at most " + std::to_string(kMaxOutstandingRequests));
  }
  if (p.percentage_random > 100) {
    return fail("percentage_random: must be 0..100, got " + std::to_string(p.percentage_random));
  }
  if (p.runtime < 0 || p.ramp_time < 0 || p.thinktime < 0 || p.thinktime_spin < 0 ||
      p.thinktime_iotime < 0)
    return fail("runtime: times must be >= 0");
  if (p.time_based && p.runtime == 0)
    return fail("time_based: needs a runtime (tierlab does not run without an end)");
  if (p.startdelay < 0) return fail("startdelay: must be >= 0");
  if (p.loops < 1) return fail("loops: must be >= 1");
  if (p.has_size && p.size.is_percent && !(p.size.percent > 0 && p.size.percent <= 100)) {
    return fail("size: percentage must be > 0 .. 100, got " + FormatDouble(p.size.percent));
  }
  if (p.has_size && !p.size.is_percent && p.size.bytes == 0)
    return fail("size: must be > 0, got 0");
  if (p.offset.is_percent && !(p.offset.percent >= 0 && p.offset.percent < 100)) {
    return fail("offset: percentage must be 0 and < 100, got " + FormatDouble(p.offset.percent));
  }
  if (p.has_size && p.size.is_percent && p.offset.is_percent &&
      p.offset.percent + p.size.percent > 100) {
    return fail("size: offset " + FormatDouble(p.offset.percent) + "% + size " +
                FormatDouble(p.size.percent) + "% exceeds the volume");
  }
  switch (p.random_distribution) {
    case RandomDistribution::kRandom: break;
    case RandomDistribution::kZipf:
      if (!(p.zipf_theta > 0 && p.zipf_theta <= 100) || p.zipf_theta == 1.0)
        return fail("random_distribution: zipf theta must be > 0 and not 1");
      break;
    case RandomDistribution::kPareto:
      if (!(p.pareto_h > 0 && p.pareto_h < 1))
        return fail("random_distribution: pareto h must be > 0 and < 1");
      break;
    case RandomDistribution::kNormal:
      if (!(p.normal_dev >= 0 && p.normal_dev <= 100))
        return fail("random_distribution: normal deviation must be 0..100");
      break;
    case RandomDistribution::kZoned: {
      std::uint32_t a = 0, s = 0;
      for (const auto& z : p.zones) {
        if (z.size_percent == 0) return fail("random_distribution: zoned: size % must be > 0");
        a += z.access_percent;
        s += z.size_percent;
      }
      if (p.zones.empty() || a != 100 || s > 100) {
        return fail(
            "random_distribution: zoned: access % must add up to 100 and size % to at most 100");
      }
      break;
    }
  }
  return {};
}

namespace {

Expected<std::string> JsonValueText(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number_float()) return FormatDouble(v.get<double>());
  if (v.is_boolean()) return std::string(v.get<bool>() ? "1" : "0");
  return MakeError("must be a string or a number");
}

}  // namespace

Expected<Profile> ParseProfileJson(const nlohmann::json& j, std::string_view source_name) {
  const std::string src(source_name);
  if (!j.is_object()) return MakeError(src + ": a profile must be a JSON object");
  int kb_base = 1024;
  if (auto it = j.find("kb_base"); it != j.end()) {
    auto text = JsonValueText(*it);
    if (!text || (*text != "1024" && *text != "1000")) {
      return MakeError(src + ": kb_base: must be 1024 or 1000");
    }
    kb_base = *text == "1000" ? 1000 : 1024;
  }
  Profile p;
  for (const auto& [key, value] : j.items()) {
    if (key == "kb_base") continue;
    auto text = JsonValueText(value);
    if (!text) return MakeError(src + ": " + key + ": " + text.error().message);
    auto r = SetProfileOption(p, key, *text, true, kb_base);
    if (!r) return MakeError(src + ": " + r.error().message);
    if (*r == OptionResult::kUnknown) {
      return MakeError(src + ": " + key +
                       ": unknown field (valid: " + Join(SupportedOptionNames()) + ")");
    }
  }
  // Aliases given together must agree (JSON objects have no order to decide).
  auto both = [&](const char* a, const char* b, auto sum_to_100) -> Expected<void> {
    if (!j.contains(a) || !j.contains(b)) return {};
    Profile x, y;
    (void)SetProfileOption(x, a, *JsonValueText(j[a]), true, kb_base);
    (void)SetProfileOption(y, b, *JsonValueText(j[b]), true, kb_base);
    if (!sum_to_100(x, y)) return MakeError(src + ": " + b + ": contradicts " + a);
    return {};
  };
  if (auto r = both("rwmixread", "rwmixwrite",
                    [](const Profile& x, const Profile& y) { return x.rwmixread == y.rwmixread; });
      !r)
    return r.error();
  if (auto r = both("percentage_random", "percentage_sequential",
                    [](const Profile& x, const Profile& y) {
                      return x.percentage_random == y.percentage_random;
                    });
      !r)
    return r.error();
  if (auto r = both("rw", "readwrite",
                    [](const Profile& x, const Profile& y) {
                      return x.rw == y.rw && x.rw_seq_nr == y.rw_seq_nr &&
                             x.rw_seq_add == y.rw_seq_add;
                    });
      !r)
    return r.error();
  if (auto r = both("bs", "blocksize",
                    [](const Profile& x, const Profile& y) {
                      return x.bs == y.bs && x.write_bs == y.write_bs;
                    });
      !r)
    return r.error();
  if (auto r = both("bsrange", "blocksize_range",
                    [](const Profile& x, const Profile& y) {
                      return x.bs == y.bs && x.write_bs == y.write_bs && x.trim_bs == y.trim_bs &&
                             std::equal(x.bs_max, x.bs_max + 3, y.bs_max);
                    });
      !r)
    return r.error();
  if (auto r =
          both("ba", "blockalign", [](const Profile& x, const Profile& y) { return x.ba == y.ba; });
      !r)
    return r.error();
  if (auto r = both(
          "iodepth_batch", "iodepth_batch_submit",
          [](const Profile& x, const Profile& y) { return x.iodepth_batch == y.iodepth_batch; });
      !r)
    return r.error();
  if (auto r = both("iodepth_batch_complete_min", "iodepth_batch_complete",
                    [](const Profile& x, const Profile& y) {
                      return x.iodepth_batch_complete_min == y.iodepth_batch_complete_min;
                    });
      !r)
    return r.error();
  if (auto r = both("runtime", "timeout",
                    [](const Profile& x, const Profile& y) { return x.runtime == y.runtime; });
      !r)
    return r.error();
  if (auto v = ValidateProfile(p); !v) return MakeError(src + ": " + v.error().message);
  return p;
}

nlohmann::json ToJson(const Profile& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& o : Options()) {
    if (o.write == nullptr) continue;
    nlohmann::json v = o.write(p);
    if (!v.is_null()) j[std::string(o.name)] = std::move(v);
  }
  return j;
}

std::vector<FieldDoc> ProfileFieldDocs() {
  static const Profile kDefaults;
  std::vector<FieldDoc> docs;
  for (const auto& o : Options()) {
    const nlohmann::json d = o.write != nullptr ? o.write(kDefaults) : nlohmann::json();
    std::string fallback = d.is_null() ? "-" : d.dump();
    if (o.name == "size") fallback = "volume size - offset";
    if (o.name == "rw_sequencer") fallback = "\"sequential\"";
    if (o.name == "time_based") fallback = "false";
    if (o.name == "loops") fallback = "1";
    if (o.name == "io_size") fallback = "size";
    if (o.name == "startdelay") fallback = "\"0s\"";
    if (o.name == "stonewall") fallback = "false";
    if (o.name == "nrfiles") fallback = "1";
    if (o.name == "filesize") fallback = "size / nrfiles";
    if (o.name == "verify") fallback = "0";
    if (o.name == "do_verify") fallback = "true";
    if (o.name == "verify_fatal" || o.name == "split_size") fallback = "false";
    if (o.name == "verify_pattern") fallback = "none (random data)";
    if (o.name == "verify_interval") fallback = "smallest write";
    if (o.name == "verify_backlog") fallback = "0";
    if (o.name == "verify_write_sequence") fallback = "true";
    if (o.name == "verify_backlog_batch") fallback = "verify_backlog";
    if (o.name == "log_avg_msec") fallback = "0";
    if (o.name == "log_offset") fallback = "false";
    if (o.name == "bsrange") fallback = "bs";
    if (o.name == "ba") fallback = "smallest block size";
    if (o.name == "rate" || o.name == "rate_min" || o.name == "rate_iops_min" ||
        o.name == "fsync" || o.name == "fdatasync")
      fallback = "0";
    if (o.name == "end_fsync" || o.name == "fsync_on_close" || o.name == "fill_device" ||
        o.name == "norandommap")
      fallback = "false";
    if (o.name == "random_generator") fallback = "tausworthe";
    if (o.name == "continue_on_error") fallback = "none";
    if (o.name == "latency_target" || o.name == "latency_window") fallback = "0";
    if (o.name == "latency_percentile") fallback = "100";
    if (o.name == "latency_run" || o.name == "log_prio" || o.name == "atomic") fallback = "false";
    if (o.name == "prio" || o.name == "prioclass") fallback = "none (priority 0)";
    if (o.name == "cmdprio_percentage" || o.name == "cmdprio") fallback = "0";
    if (o.name == "cmdprio_class") fallback = "1 (RT)";
    if (o.name == "cmdprio_bssplit" || o.name == "buffer_pattern") fallback = "none";
    if (o.name == "dedupe_percentage" || o.name == "buffer_compress_percentage") fallback = "0";
    if (o.name == "dedupe_mode") fallback = "repeat";
    if (o.name == "dedupe_working_set_percentage") fallback = "5";
    if (o.name == "dedupe_global" || o.name == "zero_buffers") fallback = "false";
    if (o.name == "buffer_compress_chunk") fallback = "512";
    if (o.name == "ignore_error") fallback = "EIO:EILSEQ for each type";
    if (o.name == "new_group" || o.name == "exitall") fallback = "false";
    if (o.name == "exit_what") fallback = "group";
    if (o.name == "thinktime_blocks") fallback = "1";
    if (o.name == "thinktime_blocks_type") fallback = "complete";
    if (o.name == "thinktime_spin" || o.name == "thinktime_iotime") fallback = "\"0s\"";
    if (o.name == "flow" || o.name == "flow_id" || o.name == "flow_sleep") fallback = "0";
    if (o.name == "io_submit_mode") fallback = "inline";
    if (o.name == "precondition" || o.name == "warmup") fallback = "none";
    if (o.name == "ss_leave") fallback = "report";
    if (o.name == "rate_process") fallback = "linear";
    if (o.name == "steadystate") fallback = "\"iops_slope:0.01%\"";
    if (o.name == "ss_dur" || o.name == "ss_ramp") fallback = "\"0s\"";
    if (o.name == "ss_interval") fallback = "\"1s\"";
    if (o.name == "iodepth_batch" || o.name == "iodepth_batch_complete_min") fallback = "1";
    if (o.name == "iodepth_batch_complete_max") fallback = "iodepth_batch_complete_min";
    if (o.name == "iodepth_low") fallback = "iodepth";
    docs.push_back({std::string(o.name), std::string(o.type), fallback,
                    o.unit.empty() ? "-" : std::string(o.unit), std::string(o.meaning)});
  }
  docs.push_back({"kb_base", "1024 | 1000", "1024", "-",
                  "meaning of k/m/g in sizes of this profile; parsing only, not stored"});
  return docs;
}

Expected<Profile> ApplyProfilePatch(const Profile& p, const nlohmann::json& patch,
                                    std::string_view source_name) {
  nlohmann::json base = ToJson(p);
  if (patch.is_object()) {
    // A patch naming one of two aliases replaces the other, so that
    // {"rwmixwrite": 30} over {"rwmixread": 50} is not a contradiction.
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 12> kAliases = {
        {{"rwmixread", "rwmixwrite"},
         {"percentage_random", "percentage_sequential"},
         {"rw", "readwrite"},
         {"bs", "blocksize"},
         {"runtime", "timeout"},
         {"io_size", "io_limit"},
         {"stonewall", "wait_for_previous"},
         {"bsrange", "blocksize_range"},
         {"ba", "blockalign"},
         {"iodepth_batch", "iodepth_batch_submit"},
         {"iodepth_batch_complete_min", "iodepth_batch_complete"},
         {"fill_device", "fill_fs"}}};
    for (auto [a, b] : kAliases) {
      if (patch.contains(std::string(b)) && !patch.contains(std::string(a)))
        base.erase(std::string(a));
      if (patch.contains(std::string(a)) && !patch.contains(std::string(b)))
        base.erase(std::string(b));
    }
    // bs sets both ends of a range, as in a job file where it comes later.
    if ((patch.contains("bs") || patch.contains("blocksize")) && !patch.contains("bsrange") &&
        !patch.contains("blocksize_range"))
      base.erase("bsrange");
  }
  base.merge_patch(patch);
  return ParseProfileJson(base, source_name);
}

Expected<void> SetProfileField(Profile& p, std::string_view path, const nlohmann::json& value) {
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (path.empty() || path.find('/') != std::string_view::npos) {
    return MakeError("override: " + std::string(path) +
                     ": profile fields are flat keys such as rwmixread");
  }
  nlohmann::json patch = nlohmann::json::object();
  patch[std::string(path)] = value;
  auto r = ApplyProfilePatch(p, patch, "override");
  if (!r) return r.error();
  p = std::move(*r);
  return {};
}

}  // namespace tierlab
