#pragma once
// A cluster layout's failures during a timed run (ClusterSpec.h's
// `failures` and `repair`; docs/CLUSTERS.md, "Failures and rebuild"), and
// the cluster's phases as they follow:
//
//   - `absent` at `at`: the node goes down; it comes `back` (and resyncs
//     what it missed) unless its repair delay runs out first, when its
//     pieces are rebuilt;
//   - `failed` at `at`: down with its data gone; rebuilt after the failed
//     delay. With a `device`, the device failed and an empty one replaced
//     it. Where it took every piece of the node (`shares`, DeviceShare.h)
//     the node is down for the failed delay (its clients run on the next
//     node) and rebuilds onto the replacement; where it held part of them
//     the node stays up, those pieces are lost at once ("device ... failed:
//     N pieces lost"; the volume degraded) and rebuilt onto the
//     replacement after the failed delay (ClusterTarget::LosePieces).
// A node's later failure replaces what its earlier one left scheduled (a
// node absent that then fails has lost its data); an absent node already
// away stays as it is. A device holding part of a node's pieces may fail
// while the node is away: they are lost all the same ("device ... failed
// while the node is away: N pieces lost"), and back, the node rebuilds
// them with what it missed.
// A rebuild needs a node to rebuild onto that holds none of a unit's other
// pieces: with no more nodes than pieces (vSAN RAID-5 3 + 1 on 4 hosts, a
// 2-node mirror) there is none, and the node stays down, degraded, until
// it is back. The rebuild itself is ClusterTarget::ReplaceNode's, or with
// `repair.spare` RetireNode's: the node leaves the cluster and the others
// rebuild its pieces in their spare room, each node its share ("rebuilt"
// as each finishes).
//
// With `repair.detect`, a node down is "noticed" that long after: until
// then I/O touching it waits (ClusterTarget::SetFailureDetection).
// With `clients.restart`, a down node's clients wait that long after it is
// noticed, then run on the next node up ("its clients restart ...";
// ClusterTarget::SetClientRestart).
//
// The cluster is in one phase at a time, the worst of its nodes':
// undetected (a node down, not noticed yet), degraded (a node down),
// rebuilding, resyncing, healthy. Each phase reports the
// guest's IOPS, bandwidth, mean latency (Little's law over the cluster's
// requests in flight) and errors within it, and the bytes repaired.
//
// Threading: the engine's thread; lives across the run.

#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "layouts/ClusterSpec.h"
#include "layouts/DeviceShare.h"
#include "tiering/core/DeviceStats.h"
#include "tiering/core/Engine.h"
#include "tiering/targets/ClusterTarget.h"

namespace tierlab {

class FailureSchedule {
 public:
  // `shares`: per entry of spec.failures, what its device held of the
  // node (Volume::failure_shares()); none, or empty: every piece.
  FailureSchedule(Engine& engine, ClusterTarget& cluster, const ClusterSpec& spec,
                  std::vector<DeviceShare> shares = {});
  ~FailureSchedule();
  FailureSchedule(const FailureSchedule&) = delete;
  FailureSchedule& operator=(const FailureSchedule&) = delete;

  // Times count from now: the start of the timed run.
  void Begin();
  // The run is over: closes the phase and cancels what has not happened.
  void End();
  // {"events": [{"at_s", "node", "event"}], "phases": [{"phase", "start_s",
  // "end_s", "iops", "mib_s", "mean_latency_us", "errors", "repaired_mib"}]}
  nlohmann::json Json() const;

  struct Phase {
    std::string name;
    Nanos start = 0, end = 0;
    DeviceStats guest;                 // the cluster's requests within it
    std::uint64_t repaired_bytes = 0;  // resync and rebuild
  };
  const std::vector<Phase>& phases() const { return phases_; }

 private:
  void At(Nanos t, std::function<void()> what);
  void Event(std::uint32_t node, std::string what);
  void Down(const ClusterFailure& f, const DeviceShare& share);
  void Rebuild(std::uint32_t node);
  void StateChanged(std::uint32_t node);
  std::string ClusterPhase() const;
  void ClosePhase();

  Engine& engine_;
  ClusterTarget& cluster_;
  ClusterSpec spec_;
  std::vector<DeviceShare> shares_;
  Nanos origin_ = 0;
  bool running_ = false;
  std::vector<TimerId> timers_;
  std::deque<std::function<void()>> actions_;     // the timers' (one may add another)
  std::vector<bool> rebuilt_;                     // per node: replaced since it went down
  std::vector<std::uint64_t> generation_;         // per node: its failures so far
  std::vector<bool> device_spare_;                // per node: a device failed, with a spare
  std::vector<ClusterTarget::NodeState> states_;  // per node, as last seen
  nlohmann::json events_ = nlohmann::json::array();
  std::vector<Phase> phases_;
  DeviceStats phase_start_;
  std::uint64_t repaired_start_ = 0;
};

}  // namespace tierlab
