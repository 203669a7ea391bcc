#pragma once
// dm-flakey / dm-error for tests: forwards to one child and, for requests that
// match a rule, fails them, corrupts them, or silently loses or tears writes.
// Rules are checked in order; the first that matches and triggers applies.
// Triggering is deterministic for a given seed.

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "tiering/core/ObjectPool.h"
#include "tiering/targets/ForwardingTarget.h"

namespace tierlab {

enum class FaultAction : std::uint8_t {
  kFail,         // complete with `status` (EIO by default); nothing reaches the child
  kCorruptRead,  // read from the child, then flip a byte in each 512 B block returned
  kLoseWrite,    // acknowledge the write without writing anything (a lost write)
  kTearWrite,    // write only the first half (rounded to blocks), acknowledge ok
};

struct FaultRule {
  // Which ops the rule applies to (bit per IoOp: 1 << int(op)).
  std::uint32_t op_mask = 0xF;
  // Byte range [start, end) a request must overlap; end 0 means "to the end".
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  FaultAction action = FaultAction::kFail;
  Status status = Status::kIoError;
  double probability = 1.0;            // of a matching request triggering
  std::uint64_t max_triggers = ~0ull;  // stop after this many
  std::uint64_t triggered = 0;         // updated by the target

  static constexpr std::uint32_t Ops(std::initializer_list<IoOp> ops) {
    std::uint32_t m = 0;
    for (IoOp o : ops) m |= 1u << static_cast<int>(o);
    return m;
  }
};

class FaultTarget final : public ForwardingTarget {
 public:
  FaultTarget(Engine& engine, std::string name, std::unique_ptr<BlockDevice> child,
              std::uint64_t seed = 1);

  // Replaces the rules (takes effect for requests submitted from now on).
  void SetRules(std::vector<FaultRule> rules) { rules_ = std::move(rules); }
  const std::vector<FaultRule>& rules() const { return rules_; }
  // Convenience: fail (EIO) every request from now on, or stop failing.
  void FailAll(bool on);

  std::string Kind() const override { return "fault"; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;

 private:
  struct Ctx {
    IoCallback done;
    IoRequest req;
    FaultAction action = FaultAction::kFail;
    bool faulted = false;
  };
  FaultRule* Match(const IoRequest& req);

  std::vector<FaultRule> rules_;
  std::mt19937_64 rng_;
  ObjectPool<Ctx> pool_;
};

}  // namespace tierlab
