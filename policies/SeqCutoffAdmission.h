#pragma once
// `seqcutoff[:BYTES]` — bcache's sequential cutoff: once a sequential stream
// has moved BYTES, the rest of it bypasses the cache, because a large stream
// is served well by the origin and would only flush hot lines.
//
// Grammar: BYTES is a byte count with optional k/m/g/t suffix (ByteSize.h);
// default 4m (bcache's sequential_cutoff default). 0 never cuts.
//
// Detection: kStreams recent streams are tracked, least recently used
// replaced first (bcache keeps a similar small LRU of recent I/O ends). A
// request whose offset equals a stream's end continues that stream and extends
// it; any other request starts a new stream. Observe() must see every request
// (hits too, as the cache target does), because a stream of hits is still a
// stream. Admit() for a line of a request answers from the stream that request
// belongs to: bypass if the stream's bytes, including this request, reach
// the cutoff (bcache's ">="). Interleaved streams are tracked separately.
// Reads and writes share streams. Memory: a fixed array of kStreams entries.

#include <array>
#include <memory>
#include <optional>
#include <string_view>

#include "policies/AdmissionPolicy.h"

namespace tierlab {

class SeqCutoffAdmission final : public AdmissionPolicy {
 public:
  static constexpr std::uint64_t kDefaultCutoff = 4ull << 20;
  static constexpr std::size_t kStreams = 32;

  explicit SeqCutoffAdmission(std::uint64_t cutoff_bytes) : cutoff_(cutoff_bytes) {}
  // Parses the text after "seqcutoff:" (nullopt for the bare name).
  static std::unique_ptr<SeqCutoffAdmission> FromSpec(std::optional<std::string_view> params);

  void Observe(const AccessInfo& a) override;
  bool Admit(const AccessInfo& a) override;
  std::string Name() const override;

  std::uint64_t Cutoff() const { return cutoff_; }
  // Bytes of the stream ending at `end`, 0 if none (for tests).
  std::uint64_t StreamBytesEndingAt(std::uint64_t end) const;

 private:
  struct Stream {
    std::uint64_t end = 0;
    std::uint64_t bytes = 0;  // 0 = unused entry
    std::uint64_t last_use = 0;
  };
  const Stream* Find(std::uint64_t end) const;

  std::uint64_t cutoff_;
  std::uint64_t tick_ = 0;
  std::array<Stream, kStreams> streams_{};
};

}  // namespace tierlab
