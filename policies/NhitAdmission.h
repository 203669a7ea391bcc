#pragma once
// `nhit:N[:WINDOW]` — promote a line on its N-th miss within a window, as
// Open CAS's NHIT promotion policy does: a line must prove it is reused before
// it costs a cache write (and an eviction).
//
// Grammar: N and WINDOW are decimal integers, 1 <= N <= 65535,
// 1 <= WINDOW <= 2^26; WINDOW defaults to 65536. Examples: "nhit:2",
// "nhit:3:100000".
//
// Counting: each Admit() of a line counts one miss on it. The counts live in
// a table of the last WINDOW distinct lines counted (a ring in arrival order
// plus a FlatKeyIndex): a line that falls out of the window forgets its
// count, which bounds memory like OCF's fixed-size NHIT hash. When a line is
// admitted its count is dropped, so after an eviction it has to earn its way
// in again. N = 1 admits every line without tracking anything.
// Observe() is not used: hits need no counting.
// Memory: about 28 bytes per window entry (ring key 8, count 4, index cells).

#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "policies/AdmissionPolicy.h"
#include "policies/FlatKeyIndex.h"

namespace tierlab {

class NhitAdmission final : public AdmissionPolicy {
 public:
  static constexpr std::size_t kDefaultWindow = 65536;
  static constexpr std::size_t kMaxWindow = std::size_t{1} << 26;

  NhitAdmission(std::uint32_t n, std::size_t window);
  struct Params {
    std::uint32_t n = 0;
    std::size_t window = kDefaultWindow;
  };
  // Reads the text after "nhit:" without building anything (a window of
  // 2^26 lines holds about 2 GiB); nullopt if malformed.
  static std::optional<Params> ParseParams(std::optional<std::string_view> params);
  // Parses and builds; nullptr if malformed.
  static std::unique_ptr<NhitAdmission> FromSpec(std::optional<std::string_view> params);

  bool Admit(const AccessInfo& a) override;
  std::string Name() const override;

  std::uint32_t Threshold() const { return n_; }
  std::size_t Window() const { return ring_.size(); }
  std::size_t Tracked() const { return index_.Size(); }
  std::size_t MemoryBytes() const {
    return index_.MemoryBytes() + ring_.capacity() * sizeof(std::uint64_t) +
           counts_.capacity() * sizeof(std::uint32_t);
  }

 private:
  std::uint32_t n_;
  FlatKeyIndex index_;                 // line -> ring position
  std::vector<std::uint64_t> ring_;    // lines in arrival order
  std::vector<std::uint32_t> counts_;  // per ring position; 0 = free
  std::size_t head_ = 0;               // next ring position to (re)use
};

}  // namespace tierlab
