#include "policies/PinnedAdmission.h"

#include <algorithm>
#include <memory>

#include "policies/ByteSize.h"

namespace tierlab {

PinnedAdmission::PinnedAdmission(std::vector<std::pair<std::uint64_t, std::uint64_t>> line_ranges,
                                 bool all, std::string spec)
    : all_(all), spec_(std::move(spec)) {
  std::sort(line_ranges.begin(), line_ranges.end());
  for (const auto& r : line_ranges) {
    if (r.first >= r.second) continue;
    if (!ranges_.empty() && r.first <= ranges_.back().second) {
      ranges_.back().second = std::max(ranges_.back().second, r.second);
    } else {
      ranges_.push_back(r);
    }
  }
}

std::unique_ptr<PinnedAdmission> PinnedAdmission::FromSpec(std::optional<std::string_view> params,
                                                           std::uint64_t line_size) {
  if (!params || params->empty() || line_size == 0) return nullptr;
  if (*params == "all") {
    return std::make_unique<PinnedAdmission>(std::vector<std::pair<std::uint64_t, std::uint64_t>>{},
                                             true, "all");
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::string_view rest = *params;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t dash = item.find('-');
    if (dash == std::string_view::npos) return nullptr;
    const auto start = ParseByteSize(item.substr(0, dash));
    const auto end = ParseByteSize(item.substr(dash + 1));
    if (!start || !end || *start >= *end) return nullptr;
    // Round outward to whole lines: a partially covered line is pinned.
    const std::uint64_t last_byte = *end - 1;
    ranges.emplace_back(*start / line_size, last_byte / line_size + 1);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return std::make_unique<PinnedAdmission>(std::move(ranges), false, std::string(*params));
}

bool PinnedAdmission::Pinned(std::uint64_t line) const {
  if (all_) return true;
  // First range starting after `line`; the one before it may contain it.
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), line,
                             [](std::uint64_t l, const auto& r) { return l < r.first; });
  if (it == ranges_.begin()) return false;
  --it;
  return line < it->second;
}

}  // namespace tierlab
