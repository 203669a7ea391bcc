// The one table of policies. To add a policy: its own files, one row below,
// and its test.

#include "policies/PolicyRegistry.h"

#include <charconv>
#include <optional>

#include "policies/AlwaysAdmission.h"
#include "policies/ArcPolicy.h"
#include "policies/ClockPolicy.h"
#include "policies/FifoDestageOrder.h"
#include "policies/FifoPolicy.h"
#include "policies/LbaDestageOrder.h"
#include "policies/LfuPolicy.h"
#include "policies/LruPolicy.h"
#include "policies/NhitAdmission.h"
#include "policies/PinnedAdmission.h"
#include "policies/S3FifoPolicy.h"
#include "policies/SeqCutoffAdmission.h"
#include "policies/SmqPolicy.h"
#include "policies/TwoQPolicy.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

using ReplacementMaker = decltype(ReplacementSpec::make);
using AdmissionMaker = decltype(AdmissionSpec::make);
// `params` is the text after "name:", or nullopt when the spec is the bare
// name. A parser returns the maker bound to the parsed parameters, or the
// reason they are bad.
using ReplacementParser = Expected<ReplacementMaker> (*)(std::optional<std::string_view> params);
using AdmissionParser = Expected<AdmissionMaker> (*)(std::optional<std::string_view> params);
using DestageFactory = std::unique_ptr<DestageOrder> (*)();

struct ReplacementEntry {
  const char* name;
  ReplacementParser parse;
};
struct AdmissionEntry {
  const char* name;
  const char* grammar;  // for the reason a spec is bad
  AdmissionParser parse;
  // Whether the parameters are well formed, checked as a 4 KiB line's
  // policy would be.
  bool (*valid)(std::optional<std::string_view> params);
};
struct DestageEntry {
  const char* name;
  DestageFactory make;
};

// A policy without parameters.
template <typename P>
Expected<ReplacementMaker> Plain(std::optional<std::string_view> params) {
  if (params) return MakeError("takes no parameters, got " + QuotedText(*params, '"'));
  return ReplacementMaker(
      [](std::size_t capacity, std::uint64_t) -> std::unique_ptr<ReplacementPolicy> {
        return std::make_unique<P>(capacity);
      });
}

std::optional<double> ParseNumber(std::string_view text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

// "key=value,key=value" into S3-FIFO's parameters.
Expected<ReplacementMaker> S3Fifo(std::optional<std::string_view> params) {
  S3FifoPolicy::Params p;
  std::string_view rest = params.value_or("");
  while (params && !rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view kv = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const std::size_t eq = kv.find('=');
    const std::string_view key = kv.substr(0, eq);
    const std::optional<double> v =
        eq == std::string_view::npos ? std::nullopt : ParseNumber(kv.substr(eq + 1));
    const auto bad = [&](const char* range) {
      return MakeError("parameter " + QuotedText(kv, '"') + ": " + std::string(key) + " must be " +
                       range);
    };
    if (key == "small_size_ratio") {
      if (!v || !(*v > 0 && *v < 1)) return bad("a number > 0 and < 1");
      p.small_size_ratio = *v;
    } else if (key == "ghost_size_ratio") {
      if (!v || !(*v >= 0 && *v <= 10)) return bad("a number 0..10");
      p.ghost_size_ratio = *v;
    } else if (key == "move_to_main_threshold") {
      if (!v || !(*v >= 1 && *v <= 3) || *v != static_cast<unsigned>(*v)) return bad("1, 2 or 3");
      p.move_to_main_threshold = static_cast<unsigned>(*v);
    } else {
      return MakeError("unknown parameter " + QuotedText(key, '"') +
                       "; known: small_size_ratio, ghost_size_ratio, move_to_main_threshold");
    }
  }
  if (params && params->empty()) return MakeError("empty parameter list after \"s3fifo:\"");
  return ReplacementMaker(
      [p](std::size_t capacity, std::uint64_t) -> std::unique_ptr<ReplacementPolicy> {
        return std::make_unique<S3FifoPolicy>(capacity, p);
      });
}

const ReplacementEntry kReplacement[] = {
    {"lru", &Plain<LruPolicy>}, {"fifo", &Plain<FifoPolicy>}, {"clock", &Plain<ClockPolicy>},
    {"2q", &Plain<TwoQPolicy>}, {"arc", &Plain<ArcPolicy>},   {"smq", &Plain<SmqPolicy>},
    {"s3fifo", &S3Fifo},        {"lfu", &Plain<LfuPolicy>},
};

// Wraps a FromSpec that returns nullptr for a malformed parameter; the
// parameters are kept as text for the real build.
template <auto FromSpec>
Expected<AdmissionMaker> Checked(std::optional<std::string_view> params) {
  std::optional<std::string> kept;
  if (params) kept = std::string(*params);
  return AdmissionMaker([kept](std::uint64_t line_size) -> std::unique_ptr<AdmissionPolicy> {
    return FromSpec(kept ? std::optional<std::string_view>(*kept) : std::nullopt, line_size);
  });
}

std::unique_ptr<AdmissionPolicy> Always(std::optional<std::string_view> params, std::uint64_t) {
  if (params) return nullptr;  // `always` takes no parameter
  return std::make_unique<AlwaysAdmission>();
}
std::unique_ptr<AdmissionPolicy> Nhit(std::optional<std::string_view> params, std::uint64_t) {
  return NhitAdmission::FromSpec(params);
}
std::unique_ptr<AdmissionPolicy> SeqCutoff(std::optional<std::string_view> params, std::uint64_t) {
  return SeqCutoffAdmission::FromSpec(params);
}
std::unique_ptr<AdmissionPolicy> Pinned(std::optional<std::string_view> params,
                                        std::uint64_t line_size) {
  return PinnedAdmission::FromSpec(params, line_size);
}

// A policy that parses its own text is checked by building it once for a
// 4 KiB line (cheap for these: no table sized by a parameter).
template <auto FromSpec>
bool Builds(std::optional<std::string_view> params) {
  return FromSpec(params, 4096) != nullptr;
}
// nhit's window sizes its tables, so it is checked without building.
bool NhitValid(std::optional<std::string_view> params) {
  return NhitAdmission::ParseParams(params).has_value();
}

const AdmissionEntry kAdmission[] = {
    {"always", "always (no parameters)", &Checked<&Always>, &Builds<&Always>},
    {"nhit", "nhit:N[:WINDOW], N 1..65535, WINDOW 1..2^26", &Checked<&Nhit>, &NhitValid},
    {"seqcutoff", "seqcutoff[:BYTES]", &Checked<&SeqCutoff>, &Builds<&SeqCutoff>},
    {"pinned", "pinned:START-END[,START-END...] or pinned:all", &Checked<&Pinned>,
     &Builds<&Pinned>},
};

const DestageEntry kDestage[] = {
    {"fifo",
     []() -> std::unique_ptr<DestageOrder> { return std::make_unique<FifoDestageOrder>(); }},
    {"lba", []() -> std::unique_ptr<DestageOrder> { return std::make_unique<LbaDestageOrder>(); }},
};

std::pair<std::string_view, std::optional<std::string_view>> SplitSpec(std::string_view spec) {
  if (const std::size_t colon = spec.find(':'); colon != std::string_view::npos) {
    return {spec.substr(0, colon), spec.substr(colon + 1)};
  }
  return {spec, std::nullopt};
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

Expected<ReplacementSpec> ParseReplacementSpec(std::string_view text) {
  const auto [name, params] = SplitSpec(text);
  for (const ReplacementEntry& e : kReplacement) {
    if (name != e.name) continue;
    auto make = e.parse(params);
    if (!make.ok()) return MakeError(std::string(name) + ": " + make.error().message);
    ReplacementMaker bounded = [m = std::move(make.value())](
                                   std::size_t capacity,
                                   std::uint64_t seed) -> std::unique_ptr<ReplacementPolicy> {
      // Slots are uint32 and the list sentinels live after them.
      if (capacity >= (std::size_t{1} << 31)) return nullptr;
      return m(capacity, seed);
    };
    return ReplacementSpec{std::string(text), std::move(bounded)};
  }
  return MakeError("unknown " + QuotedText(text, '"') +
                   "; known: " + Join(ReplacementPolicyNames()));
}

Expected<AdmissionSpec> ParseAdmissionSpec(std::string_view text) {
  const auto [name, params] = SplitSpec(text);
  for (const AdmissionEntry& e : kAdmission) {
    if (name != e.name) continue;
    auto make = e.parse(params);
    if (!make.ok()) return MakeError(std::string(name) + ": " + make.error().message);
    AdmissionSpec spec{std::string(text), std::move(make.value())};
    if (!e.valid(params)) {
      return MakeError("bad spec " + QuotedText(text, '"') + "; expected " + e.grammar);
    }
    AdmissionMaker bounded =
        [m = std::move(spec.make)](std::uint64_t line_size) -> std::unique_ptr<AdmissionPolicy> {
      if (line_size == 0) return nullptr;
      return m(line_size);
    };
    spec.make = std::move(bounded);
    return spec;
  }
  return MakeError("bad spec " + QuotedText(text, '"') +
                   "; known: " + Join(AdmissionPolicyNames()));
}

std::unique_ptr<ReplacementPolicy> MakeReplacementPolicy(std::string_view spec,
                                                         std::size_t capacity, std::uint64_t seed) {
  auto s = ParseReplacementSpec(spec);
  return s.ok() ? s->make(capacity, seed) : nullptr;
}

std::vector<std::string> ReplacementPolicyNames() {
  std::vector<std::string> names;
  for (const ReplacementEntry& e : kReplacement) names.emplace_back(e.name);
  return names;
}

std::unique_ptr<AdmissionPolicy> MakeAdmissionPolicy(std::string_view spec,
                                                     std::uint64_t line_size) {
  auto s = ParseAdmissionSpec(spec);
  return s.ok() ? s->make(line_size) : nullptr;
}

std::vector<std::string> AdmissionPolicyNames() {
  std::vector<std::string> names;
  for (const AdmissionEntry& e : kAdmission) names.emplace_back(e.name);
  return names;
}

std::unique_ptr<DestageOrder> MakeDestageOrder(std::string_view name) {
  for (const DestageEntry& e : kDestage) {
    if (name == e.name) return e.make();
  }
  return nullptr;
}

std::vector<std::string> DestageOrderNames() {
  std::vector<std::string> names;
  for (const DestageEntry& e : kDestage) names.emplace_back(e.name);
  return names;
}

}  // namespace tierlab
