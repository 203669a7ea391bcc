#pragma once
// Engine on the monotonic wall clock. Runs timers, watches file descriptors
// (libaio's eventfd, NBD sockets) with epoll, and sleeps in epoll_wait when
// there is nothing to do.
//
// Single-threaded like every engine: all callbacks run on the thread that
// calls Run(). Wake() is the one call that is safe from another thread or a
// signal handler (it makes Run() return after Stop() was requested).

#include <cstdint>
#include <memory>
#include <vector>

#include "tiering/Engine.h"
#include "tiering/TimerQueue.h"

namespace tierlab {

// Readiness callback: receives the epoll event mask (EPOLLIN, EPOLLOUT, ...).
using FdCallback = InlineFunction<void(std::uint32_t), 48>;

// Something the loop polls for completions before it blocks (e.g. a libaio
// context). Poll() reaps what is ready without blocking and returns how many
// completions it delivered.
class Poller {
 public:
  virtual ~Poller() = default;
  virtual int Poll() = 0;
  // True while requests are outstanding, so the loop is not idle.
  virtual bool Busy() const = 0;
};

class RealEngine final : public Engine {
 public:
  RealEngine();
  ~RealEngine() override;

  Nanos Now() const override;
  TimerId ScheduleAt(Nanos at, Task task) override;
  bool Cancel(TimerId id) override;
  void Run() override;
  void RunUntil(Nanos t) override;
  void Stop() override;
  bool IsSimulated() const override { return false; }

  // Watches `fd` for `events` (EPOLLIN/EPOLLOUT/...); `cb` runs on readiness.
  // Returns false (errno set) if epoll refuses the descriptor.
  bool WatchFd(int fd, std::uint32_t events, FdCallback cb);
  bool ModifyFd(int fd, std::uint32_t events);
  void UnwatchFd(int fd);

  // Registers a poller; not owned. Remove before destroying it.
  void AddPoller(Poller* p);
  void RemovePoller(Poller* p);

  // Thread- and signal-safe: requests Stop() and wakes a sleeping loop.
  void Wake();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tierlab
