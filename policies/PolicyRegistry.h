#pragma once
// The one table of policies by name. Adding a policy touches its own files,
// its entry in PolicyRegistry.cc, and its test.
//
// Factories return nullptr for an unknown name or a malformed parameter; the
// caller (layouts/) turns that into an error that lists KnownNames().

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policies/AdmissionPolicy.h"
#include "policies/DestageOrder.h"
#include "policies/ReplacementPolicy.h"

namespace tierlab {

// `name`: lru, fifo, clock, 2q, arc, smq, s3fifo, lfu. `capacity` in slots;
// `seed` for randomised policies.
std::unique_ptr<ReplacementPolicy> MakeReplacementPolicy(std::string_view name,
                                                         std::size_t capacity,
                                                         std::uint64_t seed = 1);
std::vector<std::string> ReplacementPolicyNames();

// `spec`: "always", "nhit:N[:WINDOW]", "seqcutoff[:BYTES]", "pinned:START-END[,START-END...]"
// (byte ranges; see each policy's header for the exact grammar). `line_size`
// lets byte-based specs work in lines.
std::unique_ptr<AdmissionPolicy> MakeAdmissionPolicy(std::string_view spec,
                                                     std::uint64_t line_size);
std::vector<std::string> AdmissionPolicyNames();

// `name`: fifo, lba.
std::unique_ptr<DestageOrder> MakeDestageOrder(std::string_view name);
std::vector<std::string> DestageOrderNames();

}  // namespace tierlab
