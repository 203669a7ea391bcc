#include "tiering/core/RealEngine.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

namespace tierlab {
namespace {

// epoll user data: the fd in the low 32 bits, a tag in the high 32 bits.
// User watches carry a generation (>= 1) so events collected for an fd that
// was unwatched (and maybe re-watched) in the same turn are recognised as
// stale. Internal descriptors use tag 0.
constexpr std::uint64_t kInternalTag = 0;
constexpr int kMaxEvents = 64;
// While busy, user fds are checked without blocking once per this many turns.
constexpr std::uint64_t kFdCheckEveryTurns = 16;
// Longest sleep while a poller without a wake fd is busy.
constexpr Nanos kBlindPollerSleep = 50 * kMicro;
// After a turn that did work, the loop polls (epoll with a zero timeout)
// instead of sleeping for up to this long. On the NBD serve benchmark (4k
// QD16, docs/PERFORMANCE.md) 20 and 50 us did equally well; 20 keeps the
// CPU burnt per idle gap small.
constexpr Nanos kSpinAfterWork = 20 * kMicro;
// A sleep on this machine's VM ends 20-40 us after its timeout at the median
// and up to 90-120 us at the 99th percentile (epoll_pwait2, 1 us of timer
// slack), which a timer-driven request (a delay target's 1 ms, a rate
// schedule) would carry as latency the model does not have. So the loop
// sleeps until this long before its next timer and polls from there.
constexpr Nanos kTimerSpinWindow = 100 * kMicro;

std::uint64_t Pack(std::uint32_t tag, int fd) {
  return (static_cast<std::uint64_t>(tag) << 32) | static_cast<std::uint32_t>(fd);
}

// TIERLAB_SPIN_US, TIERLAB_TIMER_SPIN_US: a whole number of microseconds, at
// most a second. A bad value is reported (one line) and the default kept,
// rather than read as 0.
Nanos ParseSpinUs(const char* name, const char* text, Nanos fallback) {
  char* end = nullptr;
  errno = 0;
  const long long us = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || us < 0 || us > 1'000'000) {
    std::fprintf(stderr,
                 "tierlab: %s='%s' is not a whole number of microseconds in "
                 "[0, 1000000]; using %lld\n",
                 name, text, static_cast<long long>(fallback / kMicro));
    return fallback;
  }
  return static_cast<Nanos>(us) * kMicro;
}

[[noreturn]] void Die(const char* what) {
  std::perror(what);
  std::abort();
}

}  // namespace

struct RealEngine::Impl {
  struct Watch {
    FdCallback cb;
    std::uint32_t gen = 0;
  };

  int epfd = -1;
  int wakefd = -1;
  TimerQueue timers;
  std::vector<std::unique_ptr<Watch>> watches;  // indexed by fd
  std::vector<std::unique_ptr<Watch>> retired;  // unwatched during dispatch
  std::size_t watch_count = 0;
  std::uint32_t next_gen = 1;
  std::vector<Poller*> pollers;
  bool stop = false;
  std::atomic<bool> wake_requested{false};
  std::uint64_t turns = 0;
  std::uint64_t sleeps = 0;
  std::uint64_t timer_spins = 0;  // turns that polled for a timer due soon
  epoll_event events[kMaxEvents];
  bool have_pwait2 = true;
  Nanos spin = kSpinAfterWork;
  Nanos timer_spin = kTimerSpinWindow;
  Nanos last_work = std::numeric_limits<Nanos>::min() / 2;

  Watch* Find(int fd) const {
    if (fd < 0 || static_cast<std::size_t>(fd) >= watches.size()) return nullptr;
    return watches[fd].get();
  }

  bool AnyPollerBusy() const {
    for (Poller* p : pollers) {
      if (p->Busy()) return true;
    }
    return false;
  }

  // Waits up to `timeout` ns (-1: forever) and dispatches ready fds.
  // Returns the number of user callbacks run.
  int WaitAndDispatch(Nanos timeout) {
    int n;
    if (have_pwait2) {
      timespec ts{};
      timespec* tsp = nullptr;
      if (timeout >= 0) {
        ts.tv_sec = timeout / kSecond;
        ts.tv_nsec = timeout % kSecond;
        tsp = &ts;
      }
      n = epoll_pwait2(epfd, events, kMaxEvents, tsp, nullptr);
      if (n < 0 && errno == ENOSYS) {
        have_pwait2 = false;
        return 0;  // retried by the loop with epoll_wait
      }
    } else {
      int ms = -1;
      if (timeout >= 0) {
        // Round up, so a sleep never ends before the timer is due.
        const Nanos m = (timeout + kMilli - 1) / kMilli;
        ms = static_cast<int>(std::min<Nanos>(m, std::numeric_limits<int>::max()));
      }
      n = epoll_wait(epfd, events, kMaxEvents, ms);
    }
    if (n <= 0) return 0;  // timeout or EINTR: the loop re-evaluates
    int ran = 0;
    for (int i = 0; i < n; ++i) {
      const std::uint64_t data = events[i].data.u64;
      const int fd = static_cast<int>(static_cast<std::uint32_t>(data));
      const auto tag = static_cast<std::uint32_t>(data >> 32);
      if (tag == kInternalTag) {
        if (fd == wakefd) {
          std::uint64_t v;
          [[maybe_unused]] ssize_t r = read(wakefd, &v, sizeof v);
        }
        continue;  // a poller's wake fd: Poll() runs next turn
      }
      Watch* w = Find(fd);
      if (w == nullptr || w->gen != tag) continue;  // unwatched this turn
      w->cb(events[i].events);
      ++ran;
    }
    retired.clear();
    return ran;
  }
};

RealEngine::RealEngine() : Engine(nullptr), impl_(std::make_unique<Impl>()) {
  impl_->epfd = epoll_create1(EPOLL_CLOEXEC);
  if (impl_->epfd < 0) Die("RealEngine: epoll_create1");
  impl_->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl_->wakefd < 0) Die("RealEngine: eventfd");
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = Pack(kInternalTag, impl_->wakefd);
  if (epoll_ctl(impl_->epfd, EPOLL_CTL_ADD, impl_->wakefd, &ev) != 0) Die("RealEngine: epoll_ctl");
  if (const char* e = std::getenv("TIERLAB_SPIN_US")) {
    impl_->spin = ParseSpinUs("TIERLAB_SPIN_US", e, kSpinAfterWork);
  }
  if (const char* e = std::getenv("TIERLAB_TIMER_SPIN_US")) {
    impl_->timer_spin = ParseSpinUs("TIERLAB_TIMER_SPIN_US", e, kTimerSpinWindow);
  }
}

RealEngine::~RealEngine() {
  close(impl_->wakefd);
  close(impl_->epfd);
}

Nanos RealEngine::ClockNow() const {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<Nanos>(ts.tv_sec) * kSecond + ts.tv_nsec;
}

TimerId RealEngine::ScheduleAt(Nanos at, Task task) {
  return impl_->timers.Push(at, std::move(task));
}

bool RealEngine::Cancel(TimerId id) {
  return impl_->timers.Cancel(id);
}

void RealEngine::Stop() {
  impl_->stop = true;
}

void RealEngine::Wake() {
  // Only lock-free atomics and write(2): both async-signal-safe.
  impl_->wake_requested.store(true, std::memory_order_release);
  const std::uint64_t one = 1;
  [[maybe_unused]] ssize_t r = write(impl_->wakefd, &one, sizeof one);
}

void RealEngine::Run() {
  RunUntil(std::numeric_limits<Nanos>::max());
}

void RealEngine::RunUntil(Nanos t) {
  Impl& m = *impl_;
  m.stop = false;
  // The kernel may let a sleep run 50 us past its timeout by default (timer
  // slack), which a timer-driven request (a delay target, a rate schedule)
  // would carry as latency; the loop's thread asks for 1 us.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL);
  auto should_return = [&m] {
    if (m.stop) return true;
    if (m.wake_requested.load(std::memory_order_relaxed) &&
        m.wake_requested.exchange(false, std::memory_order_acquire)) {
      return true;
    }
    return false;
  };
  RunDeferred();  // deferred before the loop ran
  while (!should_return()) {
    ++m.turns;
    int work = 0;
    // No fd callback is running between turns: unwatched ones can go.
    if (!m.retired.empty()) m.retired.clear();

    // 1. Timers due at the start of the turn.
    Nanos now = Now();
    const Nanos horizon = std::min(now, t);
    while (!m.timers.Empty() && m.timers.NextDue() <= horizon) {
      Nanos at;
      m.timers.RunNext(&at);
      RunDeferred();
      ++work;
      if (m.stop) return;
    }

    // 2-3. Submit batched requests, then reap completions.
    for (std::size_t i = 0; i < m.pollers.size(); ++i) m.pollers[i]->Flush();
    for (std::size_t i = 0; i < m.pollers.size(); ++i) {
      work += m.pollers[i]->Poll();
      RunDeferred();
    }
    if (m.stop) return;
    if (now >= t) return;

    if (work > 0) {
      m.last_work = now;
      // Busy: do not sleep, but do not starve sockets either.
      if (m.watch_count > 0 && m.turns % kFdCheckEveryTurns == 0) {
        m.WaitAndDispatch(0);
        RunDeferred();
      }
      continue;
    }

    // 4. Nothing ran: sleep until the next reason to wake, or return if idle.
    const bool busy = m.AnyPollerBusy();
    if (m.timers.Empty() && !busy && m.watch_count == 0) return;
    now = Now();
    Nanos timeout = -1;
    if (!m.timers.Empty()) {
      const Nanos due_in = std::max<Nanos>(0, m.timers.NextDue() - now);
      if (due_in <= m.timer_spin) {
        // A timer is due within the window: poll until it is, so it runs
        // on time rather than when a sleep happens to end.
        ++m.timer_spins;
        if (m.watch_count > 0 && m.WaitAndDispatch(0) > 0) m.last_work = now;
        RunDeferred();
        continue;
      }
      timeout = due_in - m.timer_spin;
    }
    if (t != std::numeric_limits<Nanos>::max()) {
      const Nanos until_deadline = std::max<Nanos>(0, t - now);
      timeout = timeout < 0 ? until_deadline : std::min(timeout, until_deadline);
    }
    if (busy) {
      // A blind poller (no wake fd) is polled again soon.
      for (Poller* p : m.pollers) {
        if (p->Busy() && p->WakeFd() < 0) {
          timeout = timeout < 0 ? kBlindPollerSleep : std::min(timeout, kBlindPollerSleep);
          break;
        }
      }
    }
    if (m.watch_count > 0 && timeout != 0 && now - m.last_work < m.spin) {
      // Recently busy: poll instead of sleeping, so a request that arrives
      // within microseconds does not pay a sleep and a wake-up. Only loops
      // that watch fds (servers) do this: a loop driving devices alone would
      // burn CPU waiting for completions that take tens of microseconds.
      if (m.WaitAndDispatch(0) > 0) m.last_work = now;
      RunDeferred();
      continue;
    }
    ++m.sleeps;
    if (m.WaitAndDispatch(timeout) > 0) m.last_work = Now();
    RunDeferred();
  }
}

bool RealEngine::WatchFd(int fd, std::uint32_t events, FdCallback cb) {
  Impl& m = *impl_;
  if (fd < 0) {
    errno = EBADF;
    return false;
  }
  if (m.Find(fd) != nullptr) {
    errno = EEXIST;
    return false;
  }
  auto w = std::make_unique<Impl::Watch>();
  w->cb = std::move(cb);
  w->gen = m.next_gen++;
  if (m.next_gen == 0) m.next_gen = 1;  // 0 is the internal tag
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = Pack(w->gen, fd);
  if (epoll_ctl(m.epfd, EPOLL_CTL_ADD, fd, &ev) != 0) return false;
  if (static_cast<std::size_t>(fd) >= m.watches.size()) m.watches.resize(fd + 1);
  m.watches[fd] = std::move(w);
  ++m.watch_count;
  return true;
}

bool RealEngine::ModifyFd(int fd, std::uint32_t events) {
  Impl& m = *impl_;
  Impl::Watch* w = m.Find(fd);
  if (w == nullptr) {
    errno = ENOENT;
    return false;
  }
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = Pack(w->gen, fd);
  return epoll_ctl(m.epfd, EPOLL_CTL_MOD, fd, &ev) == 0;
}

void RealEngine::UnwatchFd(int fd) {
  Impl& m = *impl_;
  if (m.Find(fd) == nullptr) return;
  // The fd may already be closed by a careless caller; the watch goes anyway.
  epoll_ctl(m.epfd, EPOLL_CTL_DEL, fd, nullptr);
  // The callback may be the one running now: keep it alive to the turn's end.
  m.retired.push_back(std::move(m.watches[fd]));
  --m.watch_count;
}

void RealEngine::AddPoller(Poller* p) {
  Impl& m = *impl_;
  m.pollers.push_back(p);
  const int fd = p->WakeFd();
  if (fd >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLET;
    ev.data.u64 = Pack(kInternalTag, fd);
    if (epoll_ctl(m.epfd, EPOLL_CTL_ADD, fd, &ev) != 0) Die("RealEngine: epoll_ctl(poller)");
  }
}

void RealEngine::RemovePoller(Poller* p) {
  Impl& m = *impl_;
  auto it = std::find(m.pollers.begin(), m.pollers.end(), p);
  if (it == m.pollers.end()) return;
  m.pollers.erase(it);
  const int fd = p->WakeFd();
  if (fd >= 0) epoll_ctl(m.epfd, EPOLL_CTL_DEL, fd, nullptr);
}

std::uint64_t RealEngine::turns() const {
  return impl_->turns;
}
std::uint64_t RealEngine::sleeps() const {
  return impl_->sleeps;
}

std::uint64_t RealEngine::timer_spins() const {
  return impl_->timer_spins;
}

}  // namespace tierlab
