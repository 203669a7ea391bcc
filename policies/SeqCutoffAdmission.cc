#include "policies/SeqCutoffAdmission.h"

#include <memory>

#include "policies/ByteSize.h"

namespace tierlab {

std::unique_ptr<SeqCutoffAdmission> SeqCutoffAdmission::FromSpec(
    std::optional<std::string_view> params) {
  if (!params) return std::make_unique<SeqCutoffAdmission>(kDefaultCutoff);
  const auto bytes = ParseByteSize(*params);
  if (!bytes) return nullptr;
  return std::make_unique<SeqCutoffAdmission>(*bytes);
}

void SeqCutoffAdmission::Observe(const AccessInfo& a) {
  if (a.length == 0) return;
  ++tick_;
  Stream* lru = &streams_[0];
  for (Stream& s : streams_) {
    if (s.bytes != 0 && s.end == a.offset) {  // continues this stream
      s.end += a.length;
      s.bytes += a.length;
      s.last_use = tick_;
      return;
    }
    if (s.last_use < lru->last_use) lru = &s;
  }
  *lru = Stream{a.offset + a.length, a.length, tick_};
}

const SeqCutoffAdmission::Stream* SeqCutoffAdmission::Find(std::uint64_t end) const {
  const Stream* best = nullptr;
  for (const Stream& s : streams_) {
    if (s.bytes != 0 && s.end == end && (best == nullptr || s.last_use > best->last_use)) {
      best = &s;
    }
  }
  return best;
}

bool SeqCutoffAdmission::Admit(const AccessInfo& a) {
  if (cutoff_ == 0) return true;
  const Stream* s = Find(a.offset + a.length);
  return s == nullptr || s->bytes < cutoff_;
}

std::uint64_t SeqCutoffAdmission::StreamBytesEndingAt(std::uint64_t end) const {
  const Stream* s = Find(end);
  return s ? s->bytes : 0;
}

std::string SeqCutoffAdmission::Name() const {
  return "seqcutoff:" + std::to_string(cutoff_);
}

}  // namespace tierlab
