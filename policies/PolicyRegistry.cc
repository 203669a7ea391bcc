// The one table of policies. To add a policy: its own files, one row below,
// and its test.

#include "policies/PolicyRegistry.h"

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

namespace tierlab {
namespace {

using ReplacementFactory = std::unique_ptr<ReplacementPolicy> (*)(std::size_t capacity,
                                                                  std::uint64_t seed);
// `params` is the text after "name:", or nullopt when the spec is the bare name.
using AdmissionFactory = std::unique_ptr<AdmissionPolicy> (*)(
    std::optional<std::string_view> params, std::uint64_t line_size);
using DestageFactory = std::unique_ptr<DestageOrder> (*)();

struct ReplacementEntry {
  const char* name;
  ReplacementFactory make;
};
struct AdmissionEntry {
  const char* name;
  AdmissionFactory make;
};
struct DestageEntry {
  const char* name;
  DestageFactory make;
};

template <typename P>
std::unique_ptr<ReplacementPolicy> Make(std::size_t capacity, std::uint64_t) {
  return std::make_unique<P>(capacity);
}

const ReplacementEntry kReplacement[] = {
    {"lru", &Make<LruPolicy>},       {"fifo", &Make<FifoPolicy>}, {"clock", &Make<ClockPolicy>},
    {"2q", &Make<TwoQPolicy>},       {"arc", &Make<ArcPolicy>},   {"smq", &Make<SmqPolicy>},
    {"s3fifo", &Make<S3FifoPolicy>}, {"lfu", &Make<LfuPolicy>},
};

const AdmissionEntry kAdmission[] = {
    {"always",
     [](std::optional<std::string_view> params, std::uint64_t) -> std::unique_ptr<AdmissionPolicy> {
       if (params) return nullptr;  // `always` takes no parameter
       return std::make_unique<AlwaysAdmission>();
     }},
    {"nhit",
     [](std::optional<std::string_view> params, std::uint64_t) -> std::unique_ptr<AdmissionPolicy> {
       return NhitAdmission::FromSpec(params);
     }},
    {"seqcutoff",
     [](std::optional<std::string_view> params, std::uint64_t) -> std::unique_ptr<AdmissionPolicy> {
       return SeqCutoffAdmission::FromSpec(params);
     }},
    {"pinned",
     [](std::optional<std::string_view> params,
        std::uint64_t line_size) -> std::unique_ptr<AdmissionPolicy> {
       return PinnedAdmission::FromSpec(params, line_size);
     }},
};

const DestageEntry kDestage[] = {
    {"fifo",
     []() -> std::unique_ptr<DestageOrder> { return std::make_unique<FifoDestageOrder>(); }},
    {"lba", []() -> std::unique_ptr<DestageOrder> { return std::make_unique<LbaDestageOrder>(); }},
};

}  // namespace

std::unique_ptr<ReplacementPolicy> MakeReplacementPolicy(std::string_view name,
                                                         std::size_t capacity, std::uint64_t seed) {
  // Slots are uint32 and the list sentinels live after them.
  if (capacity >= (std::size_t{1} << 31)) return nullptr;
  for (const ReplacementEntry& e : kReplacement) {
    if (name == e.name) return e.make(capacity, seed);
  }
  return nullptr;
}

std::vector<std::string> ReplacementPolicyNames() {
  std::vector<std::string> names;
  for (const ReplacementEntry& e : kReplacement) names.emplace_back(e.name);
  return names;
}

std::unique_ptr<AdmissionPolicy> MakeAdmissionPolicy(std::string_view spec,
                                                     std::uint64_t line_size) {
  if (line_size == 0) return nullptr;
  std::string_view name = spec;
  std::optional<std::string_view> params;
  if (const std::size_t colon = spec.find(':'); colon != std::string_view::npos) {
    name = spec.substr(0, colon);
    params = spec.substr(colon + 1);
  }
  for (const AdmissionEntry& e : kAdmission) {
    if (name == e.name) return e.make(params, line_size);
  }
  return nullptr;
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
