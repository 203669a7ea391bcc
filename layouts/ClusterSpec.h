#pragma once
// The "cluster" section of a layout: the layout's tiers, cache and other
// sections describe one node, and the volume spreads over `nodes` of them
// with copies on distinct nodes (ClusterTarget.h):
//
//   "cluster": {
//     "nodes": 4,
//     "network": {"preset": "25gbe-rdma", "nics": 2},
//     "clients": {"where": "nodes", "restart": "0s"},  // or "hosts", with hosts, preset, nics
//     "protection": {"scheme": "mirror", "copies": 2},   // or "ec", data 3, parity 1
//     "placement": {"extent": "1m", "scheme": "mesh", "reads": "local"},
//     "cpu": {"cores": 16, "per_io_ns": 20000, "per_kib_ns": 0},
//     "failures": [{"node": 2, "at": "60s", "kind": "absent", "back": "5m"}],
//     "repair": {"absent_delay": "60m", "failed_delay": "0s", "rate": "0", "depth": 1,
//                "depth_per": "node", "spare": 0, "detect": "0s"}
//   }
//
// Every key, its default and unit: ClusterFields() and its sub-tables, and
// docs/CONFIG.md ("Clusters"). Errors name the field:
//   "x.json: cluster.protection.copies: 3 copies need 3 nodes; the cluster has 2"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "layouts/FieldTable.h"
#include "tiering/core/Expected.h"
#include "tiering/targets/ClusterPlacement.h"
#include "tiering/targets/ClusterTarget.h"
#include "tiering/targets/NicModel.h"

namespace tierlab {

enum class ClusterClients : std::uint8_t { kNodes, kHosts };
enum class ClusterProtection : std::uint8_t { kNone, kMirror, kErasure };

// A node that goes away during the timed run (docs/CLUSTERS.md, "Failures
// and rebuild"). `absent`: its data is intact and it may come `back`, when
// it resyncs what it missed; if the repair delay runs out first, its pieces
// are rebuilt. `failed`: its data is gone, rebuilt after the failed delay.
struct ClusterFailure {
  enum class Kind : std::uint8_t { kAbsent, kFailed };
  std::uint32_t node = 0;
  Nanos at = 0;  // from the start of the timed run (ramp included)
  Kind kind = Kind::kAbsent;
  std::optional<Nanos> back;  // absent only; none: it stays away
  // Failed only: a device of the node ("ssd1": its tier's name and index)
  // fails rather than the node; empty: the whole node. The layout allows
  // a device whose loss is every piece of the node or the pieces at its
  // addresses (Layout.cc, CheckFailureDevices; DeviceShare.h).
  std::string device;
};

// What a cluster does about a node down: how long it waits before it
// rebuilds, and how fast each node repairs.
struct ClusterRepair {
  Nanos absent_delay = 60 * 60 * kSecond;  // vSAN's object repair timer
  Nanos failed_delay = 0;                  // vSAN rebuilds a failed device at once
  std::uint64_t rate = 0;                  // bytes per second per node; 0: unthrottled
  // Pieces each node copies at once, a window at a time each: ScaleIO's
  // concurrent rebuild I/O limit, whose default is 1.
  std::uint32_t depth = 1;
  // That many per node (false) or per capacity device of a node (true:
  // ScaleIO counts it per device; a piece is its first byte's device's).
  bool depth_per_device = false;
  // Percent of each node kept out of the volume for rebuilds: a node's
  // pieces are then rebuilt on the others' spare room, spread over all
  // (ScaleIO's spare capacity, vSAN's host rebuild reserve); 0: onto an
  // empty node in its place (ClusterTarget.h).
  std::uint32_t spare = 0;
  // How long the cluster takes to notice a node down: I/O touching it
  // waits that long (a client's timeout; vSAN pauses 5-7 s); 0: at once.
  Nanos detect = 0;
};

struct ClusterSpec {
  std::uint32_t nodes = 3;
  // Each node's ports: `nics` ports of the preset.
  std::string network_preset = "10gbe-tcp";
  NicSpec network = *NicSpec::Find("10gbe-tcp");
  std::uint32_t nics = 1;
  // Where the load runs: on the nodes (hyper-converged), or on `hosts`
  // separate hosts with ports of their own.
  ClusterClients clients = ClusterClients::kNodes;
  std::uint32_t hosts = 1;
  std::string host_preset = "10gbe-tcp";
  NicSpec host_network = *NicSpec::Find("10gbe-tcp");
  std::uint32_t host_nics = 1;
  // Where: nodes. How long a down node's clients (its VMs) are gone before
  // they run again on the next node up, counted from when the cluster
  // notices the node down (vSphere HA's restart); 0: they move at once.
  Nanos client_restart = 0;
  // Protection across nodes: copies of each extent ("none" is 1 copy), or
  // erasure coding: stripes of `data` chunks and `parity` chunks, each
  // chunk an extent on its own node (ClusterTarget.h).
  ClusterProtection protection = ClusterProtection::kMirror;
  std::uint32_t copies = 2;
  std::uint32_t data = 3;
  std::uint32_t parity = 1;
  std::uint64_t extent = 1 << 20;
  ClusterPlacement::Scheme placement = ClusterPlacement::Scheme::kMesh;
  ClusterTarget::ReadCopy reads = ClusterTarget::ReadCopy::kLocal;
  // Each node's CPU (NodeCpu.h); no cores: not modelled.
  NodeCpuSpec cpu;
  std::vector<ClusterFailure> failures;
  ClusterRepair repair;

  // The extents each placement group puts on distinct nodes: copies, the
  // stripe's chunks, or 1.
  std::uint32_t pieces() const {
    switch (protection) {
      case ClusterProtection::kMirror: return copies;
      case ClusterProtection::kErasure: return data + parity;
      case ClusterProtection::kNone: break;
    }
    return 1;
  }
};

// The section's own keys and those of its objects.
std::span<const Field<ClusterSpec>> ClusterFields();
std::span<const Field<ClusterSpec>> ClusterNetworkFields();
std::span<const Field<ClusterSpec>> ClusterClientsFields();
std::span<const Field<ClusterSpec>> ClusterProtectionFields();
std::span<const Field<ClusterSpec>> ClusterPlacementFields();
std::span<const Field<ClusterSpec>> ClusterCpuFields();
std::span<const Field<ClusterFailure>> ClusterFailureFields();
std::span<const Field<ClusterSpec>> ClusterRepairFields();

std::string_view ToString(ClusterFailure::Kind k);

// Exit code 2 on error.
Expected<ClusterSpec> ParseClusterJson(const nlohmann::json& j, std::string_view source);
// Every key; ParseClusterJson(ClusterToJson(c)) reproduces c.
nlohmann::json ClusterToJson(const ClusterSpec& c);

}  // namespace tierlab
