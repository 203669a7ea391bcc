#pragma once
// `pinned:START-END[,START-END...]` or `pinned:all` — lines in the given byte
// ranges are pinned: always admitted, and Pinned() is true so the cache target
// never evicts them (it passes an EvictFilter that rejects pinned lines). The
// equivalent of pinning a volume in the S2D/vSAN/Nimble cache.
//
// Grammar: ranges are half-open [START, END) byte ranges, START < END, each a
// byte count with optional k/m/g/t suffix (ByteSize.h), separated by commas;
// overlapping ranges merge. A line is pinned if any byte of it is in a range
// (a partial line at a range edge is pinned too). `all` pins the whole
// volume. Examples: "pinned:0-1g", "pinned:0-64m,10g-11g".
//
// Lines outside the ranges are admitted as by `always`; composing pinning
// with n-hit or seqcutoff for the rest is left to a later combinator.
// If pinned lines fill the cache, nothing else can be inserted (Evict returns
// nullopt and the cache bypasses) — sizing pins is the user's job.
// Memory: one pair of line numbers per merged range.

#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "policies/AdmissionPolicy.h"

namespace tierlab {

class PinnedAdmission final : public AdmissionPolicy {
 public:
  // `line_ranges`: half-open line ranges, any order; empty with all = true
  // pins everything.
  PinnedAdmission(std::vector<std::pair<std::uint64_t, std::uint64_t>> line_ranges, bool all,
                  std::string spec);
  // Parses the text after "pinned:"; nullptr if malformed.
  static std::unique_ptr<PinnedAdmission> FromSpec(std::optional<std::string_view> params,
                                                   std::uint64_t line_size);

  bool Admit(const AccessInfo& a) override { return true; }
  bool Pinned(std::uint64_t line) const override;
  std::string Name() const override { return "pinned:" + spec_; }

  const std::vector<std::pair<std::uint64_t, std::uint64_t>>& LineRanges() const { return ranges_; }

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_;  // sorted, disjoint
  bool all_;
  std::string spec_;
};

}  // namespace tierlab
