#pragma once
// fio's flow control (its flow.c), as counters: the jobs that share a
// flow_id issue I/Os in the ratio of their `flow` weights.
//
// Each flow has a counter that starts at 1 and a total weight. A job may
// issue when its own count over the flow's counter is at most its weight
// over the total weight; issuing adds one to both counts. Every job of the
// run joins its flow before any starts (fio registers jobs as it parses the
// job file, later stonewall groups included), and leaves when it ends,
// taking its count and weight with it. So a job whose partners have not
// started yet is held back until they do, as in fio, and a job whose
// partners have ended runs free.
//
// A held-back job waits (fio's busy loop without flow_sleep): the caller
// parks a wake-up with Wait, and takes the flow's wake-ups back to run
// them when the counter has moved or a job has left.

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace tierlab {

class FlowControl {
 public:
  using WakeUp = std::function<void()>;

  // A job of the run (weight > 0), before any job starts.
  void Join(std::uint32_t id, std::uint32_t weight);

  // fio's flow_threshold_exceeded, inverted: false when the job is ahead
  // of its share (nothing counted); else counts the I/O in the flow and in
  // job_count.
  bool TryIssue(std::uint32_t id, std::uint32_t weight, std::uint64_t& job_count);

  // The job has ended: its count and weight leave the flow.
  void Leave(std::uint32_t id, std::uint32_t weight, std::uint64_t job_count);

  // Parks a wake-up (`held`: the job has no end time of its own, so it
  // counts for Stuck until its wake-up is taken); TakeWaiting hands the
  // flow's parked wake-ups back; Unwait drops one not taken yet.
  std::uint64_t Wait(std::uint32_t id, WakeUp w, bool held);
  void Unwait(std::uint32_t id, std::uint64_t ticket);
  std::vector<WakeUp> TakeWaiting(std::uint32_t id);
  std::size_t waiting(std::uint32_t id) const;

  // Which jobs can still move the counter, to tell a wait that can never
  // end (a job whose partners start in a later section, where fio would
  // spin forever): jobs scheduled to start, running (started, not ended),
  // and, of those, held back with no end time of their own and no wake-up
  // on its way (parked, or sleeping under flow_sleep: Hold/Release).
  // A sleeper counts only while nothing has moved since it fell asleep:
  // after an issue, a start or an end its next try may succeed.
  void Schedule(std::uint32_t id) { ++flows_[id].scheduled; }
  void Start(std::uint32_t id);
  void End(std::uint32_t id) { --flows_[id].running; }
  std::uint64_t Sleep(std::uint32_t id);  // returns the flow's version
  void Wake(std::uint32_t id, std::uint64_t version);
  bool Stuck(std::uint32_t id) const;

 private:
  struct Flow {
    std::uint64_t counter = 1;
    std::uint64_t total_weight = 0;
    struct Waiter {
      std::uint64_t ticket;
      WakeUp wake;
      bool held;
    };
    std::vector<Waiter> waiting;
    std::uint32_t scheduled = 0, running = 0, held = 0;
    std::uint64_t version = 0;         // moves with every issue, start and end
    std::uint32_t sleepers_since = 0;  // asleep since the current version
    void Moved() {
      ++version;
      sleepers_since = 0;
    }
  };
  std::map<std::uint32_t, Flow> flows_;
  std::uint64_t next_ticket_ = 0;
};

}  // namespace tierlab
