#include "bench/lab/FailureSchedule.h"

#include <algorithm>
#include <utility>

namespace tierlab {
namespace {

using NodeState = ClusterTarget::NodeState;

double Seconds(Nanos t) {
  return static_cast<double>(t) / 1e9;
}

}  // namespace

FailureSchedule::FailureSchedule(Engine& engine, ClusterTarget& cluster, const ClusterSpec& spec,
                                 std::vector<DeviceShare> shares)
    : engine_(engine),
      cluster_(cluster),
      spec_(spec),
      shares_(std::move(shares)),
      rebuilt_(cluster.placement().nodes(), false),
      generation_(cluster.placement().nodes(), 0),
      device_spare_(cluster.placement().nodes(), false),
      states_(cluster.placement().nodes(), NodeState::kHealthy) {}

FailureSchedule::~FailureSchedule() {
  End();
}

void FailureSchedule::Begin() {
  origin_ = engine_.Now();
  running_ = true;
  for (std::uint32_t n = 0; n < states_.size(); ++n) states_[n] = cluster_.node_state(n);
  phases_.push_back({ClusterPhase(), origin_, origin_, {}, 0});
  phase_start_ = cluster_.stats();
  repaired_start_ = cluster_.resync_stats().bytes;
  cluster_.SetStateListener([this](std::uint32_t n) { StateChanged(n); });
  shares_.resize(spec_.failures.size());  // missing: every piece
  for (std::size_t i = 0; i < spec_.failures.size(); ++i) {
    At(spec_.failures[i].at, [this, i] { Down(spec_.failures[i], shares_[i]); });
  }
}

void FailureSchedule::End() {
  if (!running_) return;
  ClosePhase();
  running_ = false;
  for (const TimerId t : timers_) engine_.Cancel(t);
  timers_.clear();
  cluster_.SetStateListener(nullptr);
}

void FailureSchedule::At(Nanos t, std::function<void()> what) {
  // Task holds a small closure: the function lives in the schedule.
  actions_.push_back(std::move(what));
  const std::size_t i = actions_.size() - 1;
  timers_.push_back(engine_.ScheduleAt(origin_ + t, [this, i] { actions_[i](); }));
}

void FailureSchedule::Event(std::uint32_t node, std::string what) {
  events_.push_back(
      {{"at_s", Seconds(engine_.Now() - origin_)}, {"node", node}, {"event", std::move(what)}});
}

void FailureSchedule::Down(const ClusterFailure& f, const DeviceShare& share) {
  const std::uint32_t n = f.node;
  const bool failed = f.kind == ClusterFailure::Kind::kFailed;
  if (cluster_.node_retired(n)) return Event(n, "already out of the cluster");
  if (failed && !f.device.empty() && share.kind != DeviceShare::Kind::kAll) {
    // Part of the node's pieces: it stays up, and rebuilds them onto the
    // empty device once the repair may start. A node away (absent, or
    // failed and not yet rebuilt) loses them too: back, it rebuilds them
    // with what it missed; rebuilt, it has them all again anyway.
    const bool away = cluster_.node_down(n);
    const Nanos repair_at =
        origin_ + f.at + std::max(spec_.repair.failed_delay, spec_.repair.detect);
    const std::uint64_t lost = cluster_.LosePieces(
        n,
        [&share](std::uint64_t offset, std::uint64_t length) {
          return share.Holds(offset, length);
        },
        repair_at);
    return Event(n, "device " + f.device + " failed" + (away ? " while the node is away: " : ": ") +
                        std::to_string(lost) + " pieces lost");
  }
  if (cluster_.node_down(n) && !failed) return Event(n, "absent: already away");
  // What an earlier failure of this node left scheduled no longer applies.
  const std::uint64_t gen = ++generation_[n];
  rebuilt_[n] = false;
  // Nothing is repaired before the cluster has noticed.
  const Nanos detect = spec_.repair.detect;
  // A failed device leaves its host, and the VMs on it, running: they do
  // not restart (the node is down to the cluster only while it rebuilds).
  const bool host_up = failed && !f.device.empty();
  cluster_.SetNodeDown(n, true, !host_up);
  // A failed device is replaced at once by an empty one (a hot spare), so
  // the node rebuilds onto itself even where no other node could.
  device_spare_[n] = failed && !f.device.empty();
  if (cluster_.node_unnoticed(n)) {
    At(f.at + detect, [this, n, gen] {
      if (generation_[n] != gen || !cluster_.node_down(n)) return;
      Event(n, "noticed");
      StateChanged(n);
    });
  }
  if (spec_.client_restart > 0 && spec_.clients == ClusterClients::kNodes && !host_up) {
    // Its clients (VMs) run again on the next node up: HA's restart.
    At(f.at + detect + spec_.client_restart, [this, n, gen] {
      if (generation_[n] != gen) return;
      Event(n, cluster_.node_down(n) ? "its clients restart on the next node up"
                                     : "its clients restart on it");
    });
  }
  if (failed) {
    Event(n, f.device.empty() ? "failed" : "device " + f.device + " failed");
    At(f.at + std::max(spec_.repair.failed_delay, detect), [this, n, gen] {
      if (generation_[n] == gen) Rebuild(n);
    });
    return;
  }
  Event(n, "absent");
  const Nanos repair_at = f.at + std::max(spec_.repair.absent_delay, detect);
  if (!f.back || *f.back > repair_at) {
    At(repair_at, [this, n, gen] {
      if (generation_[n] == gen) Rebuild(n);
    });
  }
  if (f.back) {
    At(*f.back, [this, n, gen] {
      if (generation_[n] != gen) return;
      if (rebuilt_[n]) return Event(n, "back after its rebuild: what it held is discarded");
      cluster_.SetNodeDown(n, false);
      Event(n, "back: resyncs what it missed");
    });
  }
}

void FailureSchedule::Rebuild(std::uint32_t n) {
  if (!cluster_.node_down(n) || rebuilt_[n]) return;
  const std::uint32_t nodes = cluster_.placement().nodes();
  const std::uint32_t pieces = cluster_.placement().copies();
  if (nodes <= pieces && !device_spare_[n]) {
    Event(n, "no node to rebuild onto (" + std::to_string(nodes) + " nodes, " +
                 std::to_string(pieces) + " pieces per unit): degraded until it is back");
    return;
  }
  rebuilt_[n] = true;
  if (spec_.repair.spare > 0 && !device_spare_[n]) {
    // Out for good: its pieces are rebuilt on the others' spare room.
    Event(n, "rebuild starts on the other nodes' spare room");
    const std::uint64_t stranded = cluster_.RetireNode(n);
    if (stranded > 0) {
      Event(n, std::to_string(stranded) + " pieces find no spare room: degraded");
    }
    return;
  }
  Event(n, "rebuild starts");
  cluster_.ReplaceNode(n);
}

void FailureSchedule::StateChanged(std::uint32_t n) {
  if (!running_) return;
  const NodeState now = cluster_.node_state(n);
  if (now == NodeState::kHealthy &&
      (states_[n] == NodeState::kRebuilding || states_[n] == NodeState::kResyncing)) {
    Event(n, states_[n] == NodeState::kRebuilding ? "rebuilt" : "resynced");
  }
  states_[n] = now;
  const std::string name = ClusterPhase();
  if (name == phases_.back().name) return;
  if (phases_.back().start == engine_.Now()) {
    phases_.back().name = name;  // it lasted no time (a failed node rebuilt at once)
    return;
  }
  ClosePhase();
  phases_.push_back({name, engine_.Now(), engine_.Now(), {}, 0});
}

std::string FailureSchedule::ClusterPhase() const {
  bool rebuilding = false, resyncing = false, down = false;
  for (std::uint32_t n = 0; n < states_.size(); ++n) {
    switch (cluster_.node_state(n)) {
      case NodeState::kDown:
        if (cluster_.node_unnoticed(n)) return "undetected";
        down = true;
        break;
      case NodeState::kRebuilding: rebuilding = true; break;
      case NodeState::kResyncing: resyncing = true; break;
      case NodeState::kHealthy:
      case NodeState::kGone: break;  // out of the cluster, its pieces elsewhere
    }
  }
  if (down) return "degraded";
  return rebuilding ? "rebuilding" : resyncing ? "resyncing" : "healthy";
}

void FailureSchedule::ClosePhase() {
  Phase& p = phases_.back();
  p.end = engine_.Now();
  const DeviceStats now = cluster_.stats();
  p.guest = now;
  p.guest.Subtract(phase_start_);
  p.repaired_bytes = cluster_.resync_stats().bytes - repaired_start_;
  phase_start_ = now;
  repaired_start_ = cluster_.resync_stats().bytes;
}

nlohmann::json FailureSchedule::Json() const {
  // A phase renamed because the one before it lasted no time may carry the
  // name of the one before that: they are one phase.
  std::vector<Phase> merged;
  for (const Phase& p : phases_) {
    if (merged.empty() || merged.back().name != p.name) {
      merged.push_back(p);
      continue;
    }
    Phase& m = merged.back();
    m.end = p.end;
    m.guest.Add(p.guest);
    m.repaired_bytes += p.repaired_bytes;
  }
  nlohmann::json phases = nlohmann::json::array();
  for (const Phase& p : merged) {
    const double s = Seconds(p.end - p.start);
    const std::uint64_t ops = p.guest.read_ops + p.guest.write_ops;
    const double bytes = static_cast<double>(p.guest.read_bytes + p.guest.write_bytes);
    phases.push_back({{"phase", p.name},
                      {"start_s", Seconds(p.start - origin_)},
                      {"end_s", Seconds(p.end - origin_)},
                      {"iops", s > 0 ? static_cast<double>(ops) / s : 0.0},
                      {"mib_s", s > 0 ? bytes / s / (1 << 20) : 0.0},
                      {"mean_latency_us",
                       ops > 0 ? p.guest.qd_integral_ns / static_cast<double>(ops) / 1e3 : 0.0},
                      {"errors", p.guest.errors},
                      {"repaired_mib", static_cast<double>(p.repaired_bytes) / (1 << 20)}});
  }
  return {{"events", events_}, {"phases", std::move(phases)}};
}

}  // namespace tierlab
