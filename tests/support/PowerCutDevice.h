#pragma once
// A device owned by the test, lent to a target behind a power switch, to
// crash a stack at any moment in simulated time and recover from what the
// devices hold.
//
// Each request waits a random time (up to `max_latency`) before it reaches
// the device, so requests complete out of order. PowerSwitch::Cut() is the
// crash: a write that has not reached its device lands torn (a random
// number of its leading 4 KiB blocks, possibly none); requests and
// completions after the cut are dropped, so the stack above learns nothing
// more and can be destroyed once the engine has run dry.

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "tiering/core/BlockDevice.h"
#include "tiering/core/ObjectPool.h"

namespace tierlab::testing {

class PowerCutDevice;

class PowerSwitch {
 public:
  explicit PowerSwitch(std::uint64_t seed) : rng_(seed) {}
  bool on() const { return on_; }
  void Cut();

 private:
  friend class PowerCutDevice;
  bool on_ = true;
  std::mt19937_64 rng_;
  std::vector<PowerCutDevice*> devices_;
};

class PowerCutDevice final : public BlockDevice {
 public:
  PowerCutDevice(Engine& e, BlockDevice& d, PowerSwitch& power, Nanos max_latency)
      : BlockDevice(e, d.name() + "-power"), d_(d), power_(power), max_latency_(max_latency) {
    power_.devices_.push_back(this);
  }
  ~PowerCutDevice() override {
    std::erase(power_.devices_, this);
    for (auto& [id, c] : waiting_) engine().Cancel(c->timer);
  }
  std::uint64_t Size() const override { return d_.Size(); }
  std::uint32_t BlockSize() const override { return d_.BlockSize(); }
  std::string Kind() const override { return "power-cut"; }

  // The crash: writes still waiting land torn, the rest never arrive.
  void TearWaiting() {
    for (auto& [id, c] : waiting_) {  // in submission order: the same tears every run
      engine().Cancel(c->timer);
      if (c->req.op != IoOp::kWrite || c->req.data == nullptr) continue;
      const std::uint64_t blocks = c->req.length / 4096;
      const std::uint64_t landed = power_.rng_() % (blocks + 1);
      if (landed == 0) continue;
      IoRequest part = c->req;
      part.length = landed * 4096;
      d_.Submit(part, [](Status) {});
    }
    waiting_.clear();
  }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override {
    if (!power_.on()) return;  // dropped: nothing completes after the cut
    Ctx* c = pool_.Acquire();
    c->done = std::move(done);
    c->req = req;
    c->id = next_id_++;
    waiting_.emplace(c->id, c);
    const Nanos delay =
        static_cast<Nanos>(power_.rng_() % static_cast<std::uint64_t>(max_latency_));
    c->timer = engine().ScheduleAfter(delay, [this, c] {
      waiting_.erase(c->id);
      d_.Submit(c->req, [this, c](Status st) {
        if (power_.on()) Finish(c->done, st);
        pool_.Release(c);
      });
    });
  }

 private:
  struct Ctx {
    IoCallback done;
    IoRequest req;
    TimerId timer = 0;
    std::uint64_t id = 0;
  };
  BlockDevice& d_;
  PowerSwitch& power_;
  Nanos max_latency_;
  ObjectPool<Ctx> pool_;
  std::map<std::uint64_t, Ctx*> waiting_;  // by submission
  std::uint64_t next_id_ = 0;
};

inline void PowerSwitch::Cut() {
  on_ = false;
  for (PowerCutDevice* d : devices_) d->TearWaiting();
}

}  // namespace tierlab::testing
