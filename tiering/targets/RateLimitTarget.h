#pragma once
// A throttle in front of one child, per direction: at most `iops` requests
// and `bytes_per_second` bytes a second, as the kernel's blk-throttle
// (riops, wiops, rbps, wbps) or fio's rate options cap them. Requests are
// paced, not bursted: a request starts no earlier than the previous one of
// its direction started plus that one's cost,
//   cost = max(1 / iops, length / bytes_per_second),
// and an idle child earns no credit (the next request starts at once), so a
// throttled device serves exactly its rate under any queue depth and keeps
// each direction's order. Reads are one direction; writes and discards the
// other (a discard costs its request, not its bytes). Flushes pass at once.
// A zero figure is no limit.
//
// With a DelayTarget, it stands in for a slow tier made of a fast file:
// the rate caps what the tier serves, the delay sets its latency.

#include <memory>

#include "tiering/targets/ForwardingTarget.h"

namespace tierlab {

struct RateLimit {
  double iops = 0;              // requests per second; 0: no limit
  double bytes_per_second = 0;  // 0: no limit
  bool Limits() const { return iops > 0 || bytes_per_second > 0; }
};

struct RateLimitConfig {
  RateLimit read;
  RateLimit write;  // also discards (their count, not their bytes)
};

class RateLimitTarget final : public ForwardingTarget {
 public:
  RateLimitTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
                  RateLimitConfig limits);

  std::string Kind() const override { return "rate-limit"; }

  // Requests held back so far because their direction was busy.
  std::uint64_t throttled() const { return throttled_; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;

 private:
  struct Direction {
    RateLimit limit;
    // When the next request of this direction may start, in nanoseconds
    // (double: costs such as 1/3 us accumulate without drift).
    double next_start = 0;
  };
  Direction read_;
  Direction write_;
  std::uint64_t throttled_ = 0;
};

}  // namespace tierlab
