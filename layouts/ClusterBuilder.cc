#include "layouts/ClusterBuilder.h"

#include <functional>
#include <string>

#include "tiering/targets/SliceTarget.h"

namespace tierlab {
namespace {

// What each capacity device holds of its node (every node is built the
// same, so node 0's devices say it for all). A cache's device holds every
// piece and is not listed.
struct NamedShare {
  std::string device;
  DeviceShare share;
};
std::vector<NamedShare> CapacityShares(const LayoutSpec& l, const std::vector<TierView>& tiers) {
  std::vector<NamedShare> out;
  for (const TierSpec& t : l.tiers) {
    if (l.cache && l.cache->tier == t.name) continue;
    for (const TierView& view : tiers) {
      if (view.name != t.name) continue;
      for (std::uint32_t d = 0; d < view.devices.size(); ++d) {
        out.push_back({DeviceName(t, d), ShareOfDevice(t, d, view.devices, l.cluster->extent)});
      }
    }
  }
  return out;
}

// What each failure's device holds of its node: every piece unless it is
// a capacity device holding part of them.
std::vector<DeviceShare> FailureShares(const LayoutSpec& l, const std::vector<NamedShare>& caps) {
  std::vector<DeviceShare> shares;
  for (const ClusterFailure& f : l.cluster->failures) {
    DeviceShare& share = shares.emplace_back();
    for (const NamedShare& c : caps) {
      if (c.device == f.device) share = c.share;
    }
  }
  return shares;
}

// With repair.depth_per "device": how many device groups a node's pieces
// fall in and which a node address is in (its capacity device's; one
// group where every piece meets every device). The layout has one
// capacity tier then (Layout.cc refuses more).
struct RepairDevices {
  std::uint32_t count = 1;
  std::function<std::uint32_t(std::uint64_t)> device_of;
};
RepairDevices RepairDevicesOf(const LayoutSpec& l, const std::vector<NamedShare>& caps) {
  RepairDevices out;
  if (!l.cluster->repair.depth_per_device || caps.size() <= 1) return out;
  std::vector<DeviceShare> shares;
  for (const NamedShare& c : caps) {
    if (c.share.kind == DeviceShare::Kind::kAll) return out;
    shares.push_back(c.share);
  }
  out.count = static_cast<std::uint32_t>(shares.size());
  out.device_of = [shares = std::move(shares)](std::uint64_t offset) {
    for (std::uint32_t d = 0; d < shares.size(); ++d) {
      if (shares[d].Holds(offset, 1)) return d;
    }
    return 0u;  // past the last device: the first group's
  };
  return out;
}

}  // namespace

Expected<Volume> BuildClusterVolume(Engine& engine, const LayoutSpec& l,
                                    const BuildOptions& options) {
  const ClusterSpec& c = *l.cluster;
  if (options.volume || options.metadata_reserve != 0 || options.log_owner) {
    return MakeError(l.source +
                         ": cluster: not in a persistent volume yet; use the layout in run or "
                         "matrix",
                     ErrorKind::kInput);
  }
  Volume v;
  v.keep_files_ = options.keep_files;
  v.effective_ = LayoutToJson(l);
  std::vector<std::unique_ptr<BlockDevice>> stacks;
  std::vector<ClusterTarget::Ports> node_ports;
  RepairDevices repair_devices;
  for (std::uint32_t n = 0; n < c.nodes; ++n) {
    const std::string node = "node" + std::to_string(n);
    LayoutSpec nl = l;
    nl.cluster.reset();
    nl.size = 0;  // the cluster's size is the layout's
    nl.name = l.name + "-" + node;
    for (TierSpec& t : nl.tiers) {
      for (std::string& p : t.paths) p = PathForNode(p, n);
      if (t.log) {
        for (std::string& p : t.log->nvram_paths) p = PathForNode(p, n);
      }
    }
    BuildOptions no = options;
    no.seed = options.seed * 1000003 + n;
    auto built = BuildVolume(engine, nl, no);
    if (!built.ok()) return built.error();
    Volume& nv = built.value();
    if (n == 0) {
      const std::vector<NamedShare> caps = CapacityShares(l, nv.tiers_);
      v.failure_shares_ = FailureShares(l, caps);
      repair_devices = RepairDevicesOf(l, caps);
    }
    // The node's files are the cluster's to remove, once its devices close.
    v.created_files_.insert(v.created_files_.end(), nv.created_files_.begin(),
                            nv.created_files_.end());
    nv.created_files_.clear();
    for (TierView t : nv.tiers_) {
      t.name = node + "." + t.name;
      v.tiers_.push_back(std::move(t));
    }
    v.node_caches_.push_back(nv.cache_);
    v.node_tier_targets_.push_back(nv.tier_target_);
    stacks.push_back(std::move(nv.top_));
    ClusterTarget::Ports ports;
    for (std::uint32_t k = 0; k < c.nics; ++k) {
      ports.push_back(std::make_shared<NicModel>(node + ".nic" + std::to_string(k), c.network));
    }
    node_ports.push_back(std::move(ports));
  }
  std::vector<ClusterTarget::Client> clients;
  if (c.clients == ClusterClients::kNodes) {
    for (std::uint32_t n = 0; n < c.nodes; ++n) clients.push_back({static_cast<int>(n), {}});
  } else {
    for (std::uint32_t h = 0; h < c.hosts; ++h) {
      ClusterTarget::Client client;
      for (std::uint32_t k = 0; k < c.host_nics; ++k) {
        client.ports.push_back(std::make_shared<NicModel>(
            "host" + std::to_string(h) + ".nic" + std::to_string(k), c.host_network));
      }
      clients.push_back(std::move(client));
    }
  }
  const ClusterPlacement placement(c.nodes, c.pieces(), c.extent, c.placement, options.seed);
  const bool ec = c.protection == ClusterProtection::kErasure;
  auto cluster = std::make_unique<ClusterTarget>(
      engine, "cluster", std::move(stacks), std::move(node_ports), std::move(clients), placement,
      c.reads, ec ? c.data : 0, c.repair.spare);
  if (cluster->Size() == 0) {
    return MakeError(l.source + ": cluster.placement.extent: " + FormatBytes(c.extent) + " x " +
                     std::to_string(placement.copies()) + (ec ? " chunks" : " copies") +
                     " does not fit a node's stack" +
                     (c.repair.spare > 0 ? " less its spare room" : ""));
  }
  if (c.cpu.cores > 0) {
    std::vector<std::unique_ptr<NodeCpu>> cpus;
    for (std::uint32_t n = 0; n < c.nodes; ++n) {
      cpus.push_back(std::make_unique<NodeCpu>("node" + std::to_string(n) + ".cpu", c.cpu));
    }
    cluster->SetNodeCpus(std::move(cpus));
  }
  cluster->SetRepairRate(c.repair.rate);
  cluster->SetRepairDepth(c.repair.depth);
  if (repair_devices.count > 1) {
    cluster->SetRepairDevices(repair_devices.count, std::move(repair_devices.device_of));
  }
  cluster->SetFailureDetection(c.repair.detect);
  cluster->SetClientRestart(c.client_restart);
  v.cluster_ = cluster.get();
  for (std::size_t i = 0; i < cluster->client_count(); ++i) {
    v.clients_.push_back(&cluster->ClientView(i));
  }
  std::unique_ptr<BlockDevice> top = std::move(cluster);
  if (l.size != 0) {
    if (l.size > top->Size()) {
      return MakeError(l.source + ": size: " + FormatBytes(l.size) + " does not fit the cluster (" +
                       FormatBytes(top->Size()) + ")");
    }
    if (l.size < top->Size()) {
      top = std::make_unique<SliceTarget>(engine, "volume", std::move(top), l.size);
    }
  }
  v.top_ = std::move(top);
  return v;
}

}  // namespace tierlab
