#pragma once
// The one table of policies by name. Adding a policy touches its own files,
// its entry in PolicyRegistry.cc, and its test.
//
// A spec names a policy and its parameters, the way libCacheSim's
// cache-specific parameters do: "s3fifo:small_size_ratio=0.2",
// "nhit:2:1000". Parse*Spec checks a spec once, when the configuration is
// read, and returns the reason a bad one is bad (naming the known policies
// or parameters); the spec it returns builds the policy later, when the
// cache knows its size, without parsing again.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policies/AdmissionPolicy.h"
#include "policies/DestageOrder.h"
#include "policies/ReplacementPolicy.h"
#include "tiering/core/Expected.h"

namespace tierlab {

// A checked replacement spec. `make` returns nullptr only for a capacity the
// policy cannot index (2^31 slots or more).
struct ReplacementSpec {
  std::string text;
  std::function<std::unique_ptr<ReplacementPolicy>(std::size_t capacity, std::uint64_t seed)> make;
};

// A checked admission spec; `make` returns nullptr only for line_size 0.
struct AdmissionSpec {
  std::string text;
  std::function<std::unique_ptr<AdmissionPolicy>(std::uint64_t line_size)> make;
};

// `text`: lru, fifo, clock, 2q, arc, smq, s3fifo[:PARAMS], lfu, where PARAMS
// is key=value[,key=value] (s3fifo: small_size_ratio, ghost_size_ratio,
// move_to_main_threshold; S3FifoPolicy.h). Errors: 'unknown "mru"; known:
// lru, ...' or 's3fifo: unknown parameter "x"; known: ...'.
Expected<ReplacementSpec> ParseReplacementSpec(std::string_view text);
// "always", "nhit:N[:WINDOW]", "seqcutoff[:BYTES]", "pinned:START-END[,...]"
// (byte ranges; each policy's header has the exact grammar).
Expected<AdmissionSpec> ParseAdmissionSpec(std::string_view text);

// Parse and build in one step (tests, benchmarks, the analyzer's policy
// sweep): nullptr for a bad spec or capacity. `seed` for randomised policies.
std::unique_ptr<ReplacementPolicy> MakeReplacementPolicy(std::string_view spec,
                                                         std::size_t capacity,
                                                         std::uint64_t seed = 1);
std::vector<std::string> ReplacementPolicyNames();

// `line_size` lets byte-based specs work in lines.
std::unique_ptr<AdmissionPolicy> MakeAdmissionPolicy(std::string_view spec,
                                                     std::uint64_t line_size);
std::vector<std::string> AdmissionPolicyNames();

// `name`: fifo, lba.
std::unique_ptr<DestageOrder> MakeDestageOrder(std::string_view name);
std::vector<std::string> DestageOrderNames();

}  // namespace tierlab
