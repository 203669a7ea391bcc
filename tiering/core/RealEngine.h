#pragma once
// Engine on the monotonic wall clock (CLOCK_MONOTONIC). Runs timers, watches
// file descriptors (NBD sockets, listening sockets) with epoll, drives pollers
// (libaio contexts), and sleeps in epoll_wait when there is nothing to do.
//
// Threading: single-threaded like every engine. Every method except Wake()
// must be called on the thread that calls Run(), and all callbacks run there.
// Wake() is safe from any thread and from a signal handler.
//
// One loop turn:
//   1. run the timers due at the start of the turn (tasks they post run on the
//      next turn, so a task that re-posts itself cannot starve I/O);
//   2. Flush() every poller (a device submits the requests batched during the
//      turn, e.g. one io_submit for all of them);
//   3. Poll() every poller (reap completions, run their callbacks);
//   4. if nothing ran, sleep in epoll_wait until the next timer, a watched fd,
//      a poller's wake fd, or Wake(); run the ready fd callbacks. A loop that
//      watches fds polls instead (epoll_wait with a zero timeout) within
//      20 us of the last turn that did work: a server whose client sends the next
//      request within microseconds then pays neither the sleep nor the
//      wake-up (about 2 context switches per batch of requests). An idle loop
//      sleeps at once, so the polling costs at most 20 us of CPU per idle
//      gap. The environment variable TIERLAB_SPIN_US (read by the
//      constructor) sets the window in microseconds; 0 turns polling off; a
//      malformed value is reported on stderr and the default kept.
//      Timers run on time: the loop sleeps until 100 us before the next
//      timer is due and polls from there (a sleep on a shared VM ends 20-40
//      us late at the median, up to ~120 us at the 99th percentile, and a
//      delay target's or a rate schedule's request would carry that as
//      latency). TIERLAB_TIMER_SPIN_US sets that window; 0 sleeps to the
//      timer itself.
// While the loop stays busy, watched fds are still checked (non-blocking)
// every few turns, so sockets are not starved by a stream of completions.
//
// When Run() returns (the idle rule):
//   - Stop() was called from a callback, or Wake() from anywhere; or
//   - the loop is idle: no pending timers, no Busy() poller and no watched fd.
// A watched fd keeps the loop alive even with no timers or I/O: a server that
// watches a listening socket runs until Stop()/Wake(). A run with only timers
// and pollers (a benchmark, a test) ends by itself once everything completed.
// Pollers' wake fds never keep the loop alive; only Busy() does.
//
// Stop() requested outside Run() is forgotten by the next Run() (as in
// SimEngine). Wake() is sticky: if it lands before Run() starts or between
// two runs, the next Run()/RunUntil() returns at once (so a SIGINT that
// arrives early is not lost); each Wake() stops one run.
//
// Failure: the constructor aborts if the kernel refuses epoll or eventfd
// (resource exhaustion at startup; nothing sensible to continue with).

#include <cstdint>
#include <memory>

#include "tiering/core/Engine.h"
#include "tiering/core/TimerQueue.h"

namespace tierlab {

// Readiness callback: receives the epoll event mask (EPOLLIN, EPOLLOUT,
// EPOLLHUP, ...). It may call WatchFd/ModifyFd/UnwatchFd on any fd, including
// its own, and may Stop() the engine.
using FdCallback = InlineFunction<void(std::uint32_t), 48>;

// Something the loop drives every turn (e.g. a libaio context). Not owned by
// the engine; all calls come from the engine thread.
class Poller {
 public:
  virtual ~Poller() = default;
  // Called once per loop turn after timers ran and before Poll(): submit the
  // work batched during the turn (one syscall for many requests).
  virtual void Flush() {}
  // Reaps what is ready without blocking, runs its callbacks, and returns how
  // many completions it delivered (0 if none).
  virtual int Poll() = 0;
  // True while requests are outstanding (submitted or batched), so the loop
  // is not idle.
  virtual bool Busy() const = 0;
  // A descriptor that the engine watches edge-triggered (EPOLLIN|EPOLLET)
  // to wake from sleep when Poll() would find work, e.g. the eventfd that
  // libaio signals per completion. The engine never reads it. -1 means
  // none: while Busy(), the loop then sleeps at most 50 us between polls.
  virtual int WakeFd() const { return -1; }
};

class RealEngine final : public Engine {
 public:
  RealEngine();
  ~RealEngine() override;

  TimerId ScheduleAt(Nanos at, Task task) override;
  bool Cancel(TimerId id) override;
  // Runs until Stop()/Wake() or idle (see the idle rule above).
  void Run() override;
  // As Run(), but also returns once Now() >= t (timers due at t have run).
  void RunUntil(Nanos t) override;
  void Stop() override;
  bool IsSimulated() const override { return false; }

  // Watches `fd` for `events` (EPOLLIN/EPOLLOUT/..., level-triggered unless
  // EPOLLET is given); `cb` runs on readiness. A watched fd keeps Run()
  // alive. The fd stays owned by the caller: call UnwatchFd before closing.
  // Returns false with errno set if epoll refuses the descriptor, or EEXIST
  // if it is already watched.
  bool WatchFd(int fd, std::uint32_t events, FdCallback cb);
  // Changes the event mask of a watched fd; false with errno set on failure
  // (ENOENT if it is not watched).
  bool ModifyFd(int fd, std::uint32_t events);
  // Stops watching `fd`; its callback is destroyed (deferred to the end of the
  // loop turn if it is running). Unknown fds are ignored. Events already
  // collected for the fd in this turn are dropped.
  void UnwatchFd(int fd);

  // Registers a poller (not owned). Remove it before destroying it.
  void AddPoller(Poller* p);
  void RemovePoller(Poller* p);

  // Thread- and async-signal-safe: makes the running Run()/RunUntil() return
  // (or the next one, if none is running) and wakes a sleeping loop.
  void Wake();

  // Loop turns and sleeps so far (for tests and benchmarks).
  std::uint64_t turns() const;
  std::uint64_t sleeps() const;
  // Turns that polled because a timer was due within the spin window.
  std::uint64_t timer_spins() const;

 private:
  // CLOCK_MONOTONIC in nanoseconds (what Now() returns).
  Nanos ClockNow() const override;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tierlab
