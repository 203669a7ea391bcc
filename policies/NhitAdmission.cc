#include "policies/NhitAdmission.h"

#include <charconv>
#include <memory>


namespace tierlab {
namespace {

std::optional<std::uint64_t> ParseCount(std::string_view t) {
  std::uint64_t v = 0;
  if (t.empty()) return std::nullopt;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
  return v;
}

}  // namespace

NhitAdmission::NhitAdmission(std::uint32_t n, std::size_t window)
    : n_(n),
      index_(n > 1 ? window : 0),
      ring_(n > 1 ? window : 0, 0),
      counts_(n > 1 ? window : 0, 0) {}

std::optional<NhitAdmission::Params> NhitAdmission::ParseParams(
    std::optional<std::string_view> params) {
  if (!params) return std::nullopt;
  std::string_view n_text = *params;
  Params p;
  if (const std::size_t colon = params->find(':'); colon != std::string_view::npos) {
    n_text = params->substr(0, colon);
    const auto w = ParseCount(params->substr(colon + 1));
    if (!w || *w < 1 || *w > kMaxWindow) return std::nullopt;
    p.window = static_cast<std::size_t>(*w);
  }
  const auto n = ParseCount(n_text);
  if (!n || *n < 1 || *n > 65535) return std::nullopt;
  p.n = static_cast<std::uint32_t>(*n);
  return p;
}

std::unique_ptr<NhitAdmission> NhitAdmission::FromSpec(std::optional<std::string_view> params) {
  const auto p = ParseParams(params);
  if (!p) return nullptr;
  return std::make_unique<NhitAdmission>(p->n, p->window);
}

bool NhitAdmission::Admit(const AccessInfo& a) {
  if (n_ <= 1) return true;
  std::uint32_t pos = index_.Find(a.line);
  if (pos == FlatKeyIndex::kAbsent) {
    pos = static_cast<std::uint32_t>(head_);
    head_ = head_ + 1 == ring_.size() ? 0 : head_ + 1;
    if (counts_[pos] != 0) index_.Erase(ring_[pos]);  // the oldest line leaves the window
    ring_[pos] = a.line;
    counts_[pos] = 0;
    index_.Insert(a.line, pos);
  }
  if (++counts_[pos] < n_) return false;
  index_.Erase(a.line);
  counts_[pos] = 0;
  return true;
}

std::string NhitAdmission::Name() const {
  return "nhit:" + std::to_string(n_) + ":" +
         std::to_string(ring_.empty() ? kDefaultWindow : ring_.size());
}

}  // namespace tierlab
