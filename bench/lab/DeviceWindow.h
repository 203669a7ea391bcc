#pragma once
// Device figures over a window of a run: what each device of a volume did
// between Begin() and now. A job file's sections run one after another on
// one volume, whose devices count from the moment they were built; dividing
// those totals by one section's time reported a cache tier at 3725 % busy
// with an average queue depth of 1860. A window subtracts the counters at its
// start, and divides by its own length, so utilisation stays within 100 % per
// device and the average queue depth within what was outstanding.
//
// The peak queue depth cannot be subtracted: Begin() restarts each device's
// peak from what it has in flight, so the peak is the window's own.
//
// Threading: the volume's engine thread. Ownership: holds no device.

#include <nlohmann/json.hpp>
#include <vector>

#include "layouts/StackBuilder.h"
#include "tiering/core/DeviceStats.h"

namespace tierlab {

class DeviceWindow {
 public:
  // A window from `start` over the devices' counters since they were built
  // (nothing subtracted), until Begin().
  explicit DeviceWindow(Nanos start = 0) : start_(start) {}
  // Starts a window now, at engine time v.top().engine().Now().
  void Begin(Volume& v);
  Nanos start() const { return start_; }
  // {"elapsed_ns", "devices": [per device], "tiers": [per tier],
  // "disk_util": [per device, fio's keys]} over [start, now], with the keys
  // and units RunReport.h documents. A tier written as a log also has
  // "log": its LogStructuredStats over the window, the write
  // amplifications, and its segments in use and index memory now. A
  // cluster's volume also has "network": per port (node and host NICs),
  // each direction's bytes, messages and wire and CPU utilisation; where
  // node CPUs (or a one-node layout's host CPU) are modelled, "cpu": per
  // CPU, its cores, requests, busy time and busy share of its cores; and
  // every window has "busiest": the
  // device, port wire, port CPU or node CPU closest
  // to its limit (a port's or a CPU's busy share; a device's, or for a
  // device with several service units the share of its rated IOPS and
  // bandwidth it delivered if lower), the first suspect for what bound the
  // run.
  nlohmann::json Json(const Volume& v) const;
  // For a window that spans inner ones (a whole run over its sections): call
  // before each inner Begin(), which restarts the devices' peaks, so this
  // window's peak stays the max over all of them.
  void KeepPeaks(const Volume& v);

 private:
  Nanos start_ = 0;
  std::vector<DeviceStats> at_start_;          // tiers' devices, in order
  std::vector<std::uint32_t> peak_;            // max queue depth seen by inner windows
  std::vector<LogStructuredStats> log_start_;  // per tier (zeros where no log)
  // A cluster's ports, in ClusterPorts() order: tx and rx at the start.
  std::vector<std::pair<NicModel::Direction, NicModel::Direction>> ports_start_;
  // The modelled CPUs (ModelledCpus): busy time and requests at the start.
  std::vector<std::pair<Nanos, std::uint64_t>> cpus_start_;
};

}  // namespace tierlab
