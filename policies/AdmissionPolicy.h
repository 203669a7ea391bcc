#pragma once
// Admission / promotion policy: on a read miss (or a write, where the write
// mode allows), decides whether the line is brought into the cache.
//
// Pure data structure: time is passed in, nothing reads a clock.
// Threading: not thread-safe; one cache target owns one policy.

#include <cstdint>
#include <string>

namespace tierlab {

struct AccessInfo {
  std::uint64_t offset = 0;  // request byte offset on the volume
  std::uint64_t length = 0;  // request bytes
  std::uint64_t line = 0;    // the cache line being considered (offset / line size)
  bool is_write = false;
  std::int64_t now_ns = 0;  // engine time
};

class AdmissionPolicy {
 public:
  virtual ~AdmissionPolicy() = default;
  // Called once per request (before per-line decisions) so that stream
  // detectors see every request, hits included.
  virtual void Observe(const AccessInfo& a) {}
  // True if the line should be inserted into the cache.
  virtual bool Admit(const AccessInfo& a) = 0;
  // True if a resident line must never be evicted (pinned ranges).
  virtual bool Pinned(std::uint64_t line) const { return false; }
  virtual std::string Name() const = 0;
};

}  // namespace tierlab
