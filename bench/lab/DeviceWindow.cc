#include "bench/lab/DeviceWindow.h"

#include <algorithm>

namespace tierlab {

namespace {

// A log tier's counters since `start` (LogStructuredTarget.h).
nlohmann::json LogJson(const LogStructuredTarget& log, const LogStructuredStats& start) {
  LogStructuredStats s = log.log_stats();
  s.user_bytes_written -= start.user_bytes_written;
  s.nvram_bytes_written -= start.nvram_bytes_written;
  s.segment_bytes_written -= start.segment_bytes_written;
  s.segments_written -= start.segments_written;
  s.segments_sealed_early -= start.segments_sealed_early;
  s.cleaner_bytes_read -= start.cleaner_bytes_read;
  s.cleaner_bytes_written -= start.cleaner_bytes_written;
  s.segments_cleaned -= start.segments_cleaned;
  s.write_waits -= start.write_waits;
  s.segment_write_errors -= start.segment_write_errors;
  s.cleaner_errors -= start.cleaner_errors;
  return {{"user_bytes_written", s.user_bytes_written},
          {"nvram_bytes_written", s.nvram_bytes_written},
          {"segment_bytes_written", s.segment_bytes_written},
          {"segments_written", s.segments_written},
          {"segments_sealed_early", s.segments_sealed_early},
          {"cleaner_bytes_read", s.cleaner_bytes_read},
          {"cleaner_bytes_written", s.cleaner_bytes_written},
          {"segments_cleaned", s.segments_cleaned},
          {"write_waits", s.write_waits},
          {"segment_write_errors", s.segment_write_errors},
          {"cleaner_errors", s.cleaner_errors},
          {"write_amplification", s.WriteAmplification()},
          {"cleaner_write_amplification", s.CleanerWriteAmplification()},
          {"segment_bytes", log.segment_bytes()},
          {"segments", log.segments()},
          {"free_segments", log.free_segments()},
          {"index_memory_bytes", s.index_memory_bytes}};
}

}  // namespace
namespace {

DeviceStats Since(const DeviceStats& now, const DeviceStats& start) {
  DeviceStats d = now;
  d.Subtract(start);
  return d;  // max_queue_depth: the device's, restarted by Begin()
}

// fio's disk_util entry (its /proc/diskstats figures): I/Os per direction,
// in_queue the time-weighted number in flight (the integral, in ms) and util
// the busy share in %. Devices merge nothing, and keep no busy time per
// direction: merges and read/write ticks are 0.
nlohmann::json DiskUtil(const std::string& name, const DeviceStats& s, double elapsed) {
  return {{"name", name},
          {"read_ios", s.read_ops},
          {"write_ios", s.write_ops},
          {"read_merges", 0},
          {"write_merges", 0},
          {"read_ticks", 0},
          {"write_ticks", 0},
          {"in_queue", static_cast<std::uint64_t>(s.qd_integral_ns / static_cast<double>(kMilli))},
          {"util", 100.0 * static_cast<double>(s.busy_ns) / elapsed}};
}

// The share of a second's rate that `ops` operations and `bytes` bytes
// over `seconds` take: the larger of the operations over `iops` and the
// bytes over `bytes_per_second`. A rate of 0 is no limit.
double RateShare(std::uint64_t ops, std::uint64_t bytes, double iops, double bytes_per_second,
                 double seconds) {
  double x = 0;
  if (iops > 0) x = static_cast<double>(ops) / iops;
  if (bytes_per_second > 0) x = std::max(x, static_cast<double>(bytes) / bytes_per_second);
  return x / seconds;
}

// How close a device is to its limit: its busy share (iostat's %util),
// except that a device serving several requests at once (flash with
// parallel units) is busy long before it is saturated, so for one the
// share of its rated throughput it delivered, if lower: per direction the
// larger of its operations over its 4k IOPS and its bytes over its
// sequential bandwidth. (The average queue depth over its units, used
// before, called a drive at 64 outstanding on 16 units saturated while
// its 90 us latency held it to 711k of its 800k reads a second.)
double DeviceLoad(const DeviceStats& s, double elapsed, const DevicePreset& preset) {
  const double busy = static_cast<double>(s.busy_ns) / elapsed;
  if (preset.service_units <= 1 || preset.read_iops_4k <= 0 || preset.write_iops_4k <= 0 ||
      preset.seq_read_mbps <= 0 || preset.seq_write_mbps <= 0) {
    return busy;
  }
  const double seconds = elapsed / 1e9;
  // Past a write cliff the steady figures rate its writes; before it they
  // overstate the load, which the busy share then caps.
  const bool cliff = preset.has_write_cliff();
  const double rated =
      RateShare(s.read_ops, s.read_bytes, preset.read_iops_4k, preset.seq_read_mbps * 1e6,
                seconds) +
      RateShare(s.write_ops, s.write_bytes,
                cliff ? preset.steady_write_iops_4k : preset.write_iops_4k,
                (cliff ? preset.steady_seq_write_mbps : preset.seq_write_mbps) * 1e6, seconds);
  return std::min(busy, rated);
}

// How close a tier's throttle (blk-throttle's limits, in front of each
// device) is to its limit: per direction, the larger of its operations
// over its IOPS limit and its bytes over its bandwidth limit, a second;
// the busier direction (each is throttled on its own). 0: no throttle.
double ThrottleLoad(const DeviceStats& s, double elapsed, const RateLimitConfig& limits) {
  const double seconds = elapsed / 1e9;
  const RateLimit& r = limits.read;
  const RateLimit& w = limits.write;
  return std::max(
      RateShare(s.read_ops, s.read_bytes, r.iops, r.bytes_per_second, seconds),
      RateShare(s.write_ops + s.discard_ops, s.write_bytes, w.iops, w.bytes_per_second, seconds));
}

// A cluster's ports: every node's, then every host's.
std::vector<const NicModel*> ClusterPorts(const Volume& v) {
  std::vector<const NicModel*> ports;
  const ClusterTarget* c = v.cluster();
  if (c == nullptr) return ports;
  for (std::size_t n = 0; n < c->placement().nodes(); ++n) {
    for (const auto& p : c->node_ports(n)) ports.push_back(p.get());
  }
  for (std::size_t i = 0; i < c->client_count(); ++i) {
    for (const auto& p : c->client(i).ports) ports.push_back(p.get());
  }
  return ports;
}

// The CPUs modelled: a cluster's node CPUs, or a one-node layout's host CPU.
std::vector<const NodeCpu*> ModelledCpus(const Volume& v) {
  std::vector<const NodeCpu*> cpus;
  if (v.host_cpu() != nullptr) cpus.push_back(v.host_cpu());
  const ClusterTarget* c = v.cluster();
  if (c == nullptr) return cpus;
  for (std::size_t n = 0; n < c->placement().nodes(); ++n) {
    if (const NodeCpu* cpu = c->node_cpu(n)) cpus.push_back(cpu);
  }
  return cpus;
}

NicModel::Direction Since(const NicModel::Direction& now, const NicModel::Direction& then) {
  NicModel::Direction d = now;
  d.wire_busy -= then.wire_busy;
  d.cpu_busy -= then.cpu_busy;
  d.bytes -= then.bytes;
  d.messages -= then.messages;
  return d;
}

}  // namespace

void DeviceWindow::Begin(Volume& v) {
  start_ = v.top().engine().Now();
  at_start_.clear();
  peak_.clear();
  log_start_.clear();
  for (const TierView& t : v.tiers()) {
    for (BlockDevice* d : t.devices) {
      d->RestartPeakQueueDepth();
      at_start_.push_back(d->stats());
      peak_.push_back(0);
    }
    log_start_.push_back(t.log != nullptr ? t.log->log_stats() : LogStructuredStats{});
  }
  ports_start_.clear();
  for (const NicModel* p : ClusterPorts(v)) ports_start_.emplace_back(p->tx(), p->rx());
  cpus_start_.clear();
  for (const NodeCpu* c : ModelledCpus(v)) cpus_start_.emplace_back(c->busy(), c->requests());
}

void DeviceWindow::KeepPeaks(const Volume& v) {
  std::size_t i = 0;
  for (const TierView& t : v.tiers()) {
    for (const BlockDevice* d : t.devices) {
      if (i < peak_.size()) peak_[i] = std::max(peak_[i], d->stats().max_queue_depth);
      ++i;
    }
  }
}

nlohmann::json DeviceWindow::Json(const Volume& v) const {
  // Devices may still be busy after a run's measured window (destage, a
  // backlog): the window runs to now, not to the last measured completion.
  const Nanos elapsed = v.top().engine().Now() - start_;
  const double el = elapsed > 0 ? static_cast<double>(elapsed) : 1;
  nlohmann::json devices = nlohmann::json::array();
  nlohmann::json tiers = nlohmann::json::array();
  nlohmann::json disk_util = nlohmann::json::array();
  std::size_t i = 0;
  nlohmann::json busiest = {{"resource", "none"}, {"util", 0.0}};
  auto consider = [&busiest](const std::string& what, double util) {
    if (util > busiest["util"].get<double>()) busiest = {{"resource", what}, {"util", util}};
  };
  for (const TierView& t : v.tiers()) {
    DeviceStats sum;
    for (const BlockDevice* d : t.devices) {
      DeviceStats s = i < at_start_.size() ? Since(d->stats(), at_start_[i]) : d->stats();
      if (i < peak_.size()) s.max_queue_depth = std::max(s.max_queue_depth, peak_[i]);
      ++i;
      devices.push_back({{"name", d->name()},
                         {"kind", d->Kind()},
                         {"tier", t.name},
                         {"read_ops", s.read_ops},
                         {"read_bytes", s.read_bytes},
                         {"write_ops", s.write_ops},
                         {"write_bytes", s.write_bytes},
                         {"flush_ops", s.flush_ops},
                         {"discard_ops", s.discard_ops},
                         {"errors", s.errors},
                         {"busy_ns", s.busy_ns},
                         {"util", static_cast<double>(s.busy_ns) / el},
                         {"avg_queue_depth", s.qd_integral_ns / el},
                         {"max_queue_depth", s.max_queue_depth}});
      disk_util.push_back(DiskUtil(d->name(), s, el));
      consider(t.name + " " + d->name(), DeviceLoad(s, el, t.preset));
      if (t.limits.read.Limits() || t.limits.write.Limits()) {
        consider(t.name + " " + d->name() + " throttle", ThrottleLoad(s, el, t.limits));
      }
      sum.Add(s);
    }
    const double n = t.devices.empty() ? 1 : static_cast<double>(t.devices.size());
    const std::size_t k = static_cast<std::size_t>(tiers.size());
    tiers.push_back({{"name", t.name},
                     {"role", t.role},
                     {"preset", std::string(t.preset.name)},
                     {"devices", t.devices.size()},
                     {"read_ops", sum.read_ops},
                     {"read_bytes", sum.read_bytes},
                     {"write_ops", sum.write_ops},
                     {"write_bytes", sum.write_bytes},
                     {"util", static_cast<double>(sum.busy_ns) / el / n},
                     {"avg_queue_depth", sum.qd_integral_ns / el}});
    if (t.log != nullptr) {
      tiers.back()["log"] =
          LogJson(*t.log, k < log_start_.size() ? log_start_[k] : LogStructuredStats{});
    }
  }
  nlohmann::json out = {{"elapsed_ns", elapsed},
                        {"devices", std::move(devices)},
                        {"tiers", std::move(tiers)},
                        {"disk_util", std::move(disk_util)}};
  const std::vector<const NicModel*> ports = ClusterPorts(v);
  if (!ports.empty()) {
    nlohmann::json network = nlohmann::json::array();
    for (std::size_t k = 0; k < ports.size(); ++k) {
      const NicModel& p = *ports[k];
      nlohmann::json port = {{"name", p.name()}, {"preset", p.spec().name}};
      for (const bool tx : {true, false}) {
        const NicModel::Direction& now = tx ? p.tx() : p.rx();
        const NicModel::Direction d =
            k < ports_start_.size()
                ? Since(now, tx ? ports_start_[k].first : ports_start_[k].second)
                : now;
        const double wire = static_cast<double>(d.wire_busy) / el;
        port[tx ? "tx" : "rx"] = {{"bytes", d.bytes},
                                  {"messages", d.messages},
                                  {"util", wire},
                                  {"cpu_util", static_cast<double>(d.cpu_busy) / el}};
        consider(p.name() + (tx ? " tx" : " rx"), wire);
        consider(p.name() + (tx ? " tx CPU" : " rx CPU"), static_cast<double>(d.cpu_busy) / el);
      }
      network.push_back(std::move(port));
    }
    out["network"] = std::move(network);
  }
  const std::vector<const NodeCpu*> cpus = ModelledCpus(v);
  if (!cpus.empty()) {
    nlohmann::json cpu = nlohmann::json::array();
    for (std::size_t k = 0; k < cpus.size(); ++k) {
      const NodeCpu& c = *cpus[k];
      const auto [busy0, requests0] =
          k < cpus_start_.size() ? cpus_start_[k] : std::pair<Nanos, std::uint64_t>{0, 0};
      const double util = c.Utilisation(c.busy() - busy0, elapsed);
      cpu.push_back({{"name", c.name()},
                     {"cores", c.spec().cores},
                     {"requests", c.requests() - requests0},
                     {"busy_ns", c.busy() - busy0},
                     {"util", util}});
      consider(c.name(), util);
    }
    out["cpu"] = std::move(cpu);
  }
  out["busiest"] = std::move(busiest);
  return out;
}

}  // namespace tierlab
