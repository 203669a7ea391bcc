#include "layouts/ClusterSpec.h"

#include <charconv>
#include <cmath>
#include <vector>

#include "layouts/JsonFields.h"
#include "layouts/NodeCpuFields.h"

namespace tierlab {
namespace {

using F = Field<ClusterSpec>;
using json = nlohmann::json;

constexpr std::int64_t kMaxNodes = 16;  // issue 18's scale
constexpr std::int64_t kMaxNics = 8;
constexpr std::int64_t kMaxHosts = 64;

std::vector<std::string> NicPresetNames() {
  std::vector<std::string> names;
  for (const NicSpec& s : NicSpec::Catalog()) names.push_back(s.name);
  return names;
}

// A NIC preset by name into `name` and `spec`.
void ReadNicPreset(JsonFields& f, std::string_view k, std::string& name, NicSpec& spec) {
  name = f.Choice(k, name, NicPresetNames());
  if (f.ok()) spec = *NicSpec::Find(name);
}

// Times (below, with the repair table that has most of them).
Nanos ReadTime(JsonFields& f, std::string_view k, Nanos def);
json TimeJson(Nanos t);

// A figure of the node ports' preset, replaced by the layout (after the
// preset, which the table reads first).
template <Nanos NicSpec::*kFigure>
void ReadNicFigure(JsonFields& f, std::string_view k, ClusterSpec& c) {
  c.network.*kFigure = f.Int(k, c.network.*kFigure, 0, 1'000'000'000);
}

// Written only where it differs from the preset's, so a layout written back
// follows a change of preset (a matrix axis) rather than pinning it.
template <Nanos NicSpec::*kFigure>
json ReplacedNicFigure(const ClusterSpec& c) {
  const std::optional<NicSpec> preset = NicSpec::Find(c.network_preset);
  if (preset && (*preset).*kFigure == c.network.*kFigure) return nullptr;
  return c.network.*kFigure;
}

// An object row: reads the object at `key` with `kTable` (an array of
// rows, built-in or std::array: a reference, since clang before 18 takes
// no pointer into an object as a template argument).
template <const auto& kTable>
void ReadObject(JsonFields& f, std::string_view k, ClusterSpec& c) {
  const json* o = f.Raw(k);
  if (o == nullptr || !f.ok()) return;
  if (!o->is_object()) return f.Fail(k, "must be an object");
  JsonFields sub = f.Child(*o, std::string(k));
  ReadFields(std::span<const F>(kTable), sub, c);
  f.Adopt(sub);
}

const F kNetworkFields[] = {
    {"preset", "1gbe-tcp | 10gbe-tcp | 25gbe-tcp | 40gbe-tcp | 100gbe-tcp | 10gbe-rdma | ...", "",
     "each port's link (docs/CLUSTERS.md, \"The network\")",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       ReadNicPreset(f, k, c.network_preset, c.network);
     },
     [](const ClusterSpec& c) -> json { return c.network_preset; }},
    {"nics", "integer 1..8", "", "ports per node, used in turn request by request",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.nics = static_cast<std::uint32_t>(f.Int(k, c.nics, 1, kMaxNics));
     },
     [](const ClusterSpec& c) -> json { return c.nics; }},
    {"one_way_latency_ns", "integer 0..1e9", "ns",
     "the preset's one-way latency, replaced (a user's own ping / 2)",
     &ReadNicFigure<&NicSpec::one_way_latency>, &ReplacedNicFigure<&NicSpec::one_way_latency>,
     false, "the preset's"},
    {"cpu_per_message_ns", "integer 0..1e9", "ns",
     "the preset's CPU per message on each side, replaced",
     &ReadNicFigure<&NicSpec::cpu_per_message>, &ReplacedNicFigure<&NicSpec::cpu_per_message>,
     false, "the preset's"},
};

const F kClientsFields[] = {
    {"where", "nodes | hosts", "",
     "nodes: the load runs on the nodes (hyper-converged); hosts: on separate hosts",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       const std::string w =
           f.Choice(k, c.clients == ClusterClients::kHosts ? "hosts" : "nodes", {"nodes", "hosts"});
       c.clients = w == "hosts" ? ClusterClients::kHosts : ClusterClients::kNodes;
     },
     [](const ClusterSpec& c) -> json {
       return c.clients == ClusterClients::kHosts ? "hosts" : "nodes";
     }},
    {"hosts", "integer 1..64", "", "client hosts (where: hosts)",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.hosts = static_cast<std::uint32_t>(f.Int(k, c.hosts, 1, kMaxHosts));
     },
     [](const ClusterSpec& c) -> json { return c.hosts; }},
    {"preset", "a network preset (as network.preset)", "", "each host port's link",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       ReadNicPreset(f, k, c.host_preset, c.host_network);
     },
     [](const ClusterSpec& c) -> json { return c.host_preset; }},
    {"nics", "integer 1..8", "", "ports per host",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.host_nics = static_cast<std::uint32_t>(f.Int(k, c.host_nics, 1, kMaxNics));
     },
     [](const ClusterSpec& c) -> json { return c.host_nics; }},
    {"restart", "time", "",
     "where: nodes. A down node's clients (its VMs) are gone this long after the cluster notices "
     "it down, then run on the next node up (vSphere HA's restart); 0: they move at once",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.client_restart = ReadTime(f, k, c.client_restart);
     },
     [](const ClusterSpec& c) -> json { return TimeJson(c.client_restart); }},
};

std::string_view ProtectionName(ClusterProtection p) {
  switch (p) {
    case ClusterProtection::kMirror: return "mirror";
    case ClusterProtection::kErasure: return "ec";
    case ClusterProtection::kNone: break;
  }
  return "none";
}

const F kProtectionFields[] = {
    {"scheme", "mirror | ec | none", "",
     "mirror: copies of each extent on distinct nodes; ec: erasure coding, stripes of data and "
     "parity chunks on distinct nodes (vSAN RAID-5/6); none: one copy",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       const std::string s =
           f.Choice(k, std::string(ProtectionName(c.protection)), {"mirror", "ec", "none"});
       c.protection = s == "mirror" ? ClusterProtection::kMirror
                      : s == "ec"   ? ClusterProtection::kErasure
                                    : ClusterProtection::kNone;
     },
     [](const ClusterSpec& c) -> json { return std::string(ProtectionName(c.protection)); }},
    {"copies", "integer 2..16", "", "mirror: copies of each extent (S2D two- or three-way)",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.copies = static_cast<std::uint32_t>(f.Int(k, c.copies, 2, kMaxNodes));
     },
     [](const ClusterSpec& c) -> json { return c.copies; }},
    {"data", "integer 2..15", "",
     "ec: data chunks per stripe (vSAN RAID-5: 3, RAID-6: 4), each chunk a placement extent",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.data = static_cast<std::uint32_t>(f.Int(k, c.data, 2, kMaxNodes - 1));
     },
     [](const ClusterSpec& c) -> json { return c.data; }},
    {"parity", "integer 1..3", "",
     "ec: parity chunks per stripe, as many nodes' loss it survives (RAID-5: 1, RAID-6: 2)",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.parity = static_cast<std::uint32_t>(f.Int(k, c.parity, 1, 3));
     },
     [](const ClusterSpec& c) -> json { return c.parity; }},
};

const F kPlacementFields[] = {
    {"extent", "bytes, a multiple of 4k", "bytes",
     "the unit placed on nodes (ScaleIO's 1 MiB chunk, S2D's slab)",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.extent = f.Bytes(k, c.extent);
       if (f.ok() && (c.extent == 0 || c.extent % 4096 != 0)) {
         f.Fail(k, "must be a positive multiple of 4k, got " + FormatBytes(c.extent));
       }
     },
     [](const ClusterSpec& c) -> json { return FormatBytes(c.extent); }},
    {"scheme", "mesh | chained", "",
     "mesh: each group of extents on a random order of the nodes (ScaleIO); chained: copies on "
     "the next nodes",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       const std::string s = f.Choice(k, std::string(ToString(c.placement)), {"mesh", "chained"});
       c.placement =
           s == "chained" ? ClusterPlacement::Scheme::kChained : ClusterPlacement::Scheme::kMesh;
     },
     [](const ClusterSpec& c) -> json { return std::string(ToString(c.placement)); }},
    {"reads", "local | primary", "",
     "local: a node reads its own copy where it has one (S2D); primary: the extent's first copy "
     "(vSAN, ScaleIO)",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       const std::string r = f.Choice(k, std::string(ToString(c.reads)), {"local", "primary"});
       c.reads =
           r == "primary" ? ClusterTarget::ReadCopy::kPrimary : ClusterTarget::ReadCopy::kLocal;
     },
     [](const ClusterSpec& c) -> json { return std::string(ToString(c.reads)); }},
};

constexpr std::array<F, 1> kCpuCoresField = {{
    {"cores", "integer 0..1024", "", "each node's cores for its storage work; 0: not modelled",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.cpu.cores = static_cast<std::uint32_t>(f.Int(k, c.cpu.cores, 0, 1024));
     },
     [](const ClusterSpec& c) -> json { return c.cpu.cores; }},
}};

constexpr auto kCpuFields =
    JoinFields(kCpuCoresField, CpuCostFields<ClusterSpec, &ClusterSpec::cpu>());

// A time: a number of seconds, or a string with a unit as fio writes
// times ("500ms", "60s", "60m", "1h"; "us" and "ns" too). Times are whole ns.
Nanos ReadTime(JsonFields& f, std::string_view k, Nanos def) {
  const json* v = f.Raw(k);
  if (v == nullptr || !f.ok()) return def;
  double seconds = -1;
  if (v->is_number()) {
    seconds = v->get<double>();
  } else if (v->is_string()) {
    const std::string& t = v->get_ref<const std::string&>();
    double n = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    const std::string_view unit(end, static_cast<std::size_t>(t.data() + t.size() - end));
    if (ec == std::errc() && !t.empty()) {
      if (unit == "ns") seconds = n / 1e9;
      if (unit == "us") seconds = n / 1e6;
      if (unit == "ms") seconds = n / 1e3;
      if (unit == "s" || unit.empty()) seconds = n;
      if (unit == "m") seconds = n * 60;
      if (unit == "h") seconds = n * 3600;
    }
  }
  constexpr double kMaxSeconds = 1e6;  // 11.6 days
  if (!(seconds >= 0 && seconds <= kMaxSeconds)) {
    f.Fail(k,
           "must be a time from 0 to 1e6 s such as \"500ms\", \"60s\", \"60m\", got " + v->dump());
    return def;
  }
  return static_cast<Nanos>(std::llround(seconds * 1e9));
}

// The shortest exact form: "1h", "90s", "500ms", "1234us", "1500ns".
json TimeJson(Nanos t) {
  constexpr Nanos kMinute = 60 * kSecond;
  if (t != 0 && t % (60 * kMinute) == 0) return std::to_string(t / (60 * kMinute)) + "h";
  if (t != 0 && t % kMinute == 0) return std::to_string(t / kMinute) + "m";
  if (t % kSecond == 0) return std::to_string(t / kSecond) + "s";
  if (t % kMilli == 0) return std::to_string(t / kMilli) + "ms";
  if (t % 1000 == 0) return std::to_string(t / 1000) + "us";
  return std::to_string(t) + "ns";
}

using FF = Field<ClusterFailure>;
const FF kFailureFields[] = {
    {"node", "integer 0..nodes-1", "", "the node that goes away",
     [](JsonFields& f, std::string_view k, ClusterFailure& x) {
       x.node = static_cast<std::uint32_t>(f.Int(k, x.node, 0, 1'000'000));
     },
     [](const ClusterFailure& x) -> json { return x.node; }},
    {"at", "time (\"60s\", \"500ms\", \"2m\")", "", "when, from the start of the timed run",
     [](JsonFields& f, std::string_view k, ClusterFailure& x) { x.at = ReadTime(f, k, x.at); },
     [](const ClusterFailure& x) -> json { return TimeJson(x.at); }},
    {"kind", "absent | failed", "",
     "absent: its data is intact, it may come back and resync; failed: its data is gone",
     [](JsonFields& f, std::string_view k, ClusterFailure& x) {
       const std::string v = f.Choice(k, std::string(ToString(x.kind)), {"absent", "failed"});
       x.kind = v == "failed" ? ClusterFailure::Kind::kFailed : ClusterFailure::Kind::kAbsent;
     },
     [](const ClusterFailure& x) -> json { return std::string(ToString(x.kind)); }},
    {"back", "time", "", "absent: when it comes back, from the start of the timed run",
     [](JsonFields& f, std::string_view k, ClusterFailure& x) {
       if (f.Raw(k) != nullptr) x.back = ReadTime(f, k, 0);
     },
     [](const ClusterFailure& x) -> json { return x.back ? TimeJson(*x.back) : json(nullptr); },
     true, "never"},
    {"device", "string: tier name and index (\"cache0\", \"ssd1\")", "",
     "failed only: that device of the node fails, replaced at once by an empty one, and the "
     "node's pieces it held are rebuilt onto it: all of them for a write-back cache's device or "
     "a stripe's whose pieces span every device (the node is down meanwhile), those at its "
     "addresses for a linear tier's or a narrower stripe's (the node stays up)",
     [](JsonFields& f, std::string_view k, ClusterFailure& x) { x.device = f.String(k, x.device); },
     [](const ClusterFailure& x) -> json {
       return x.device.empty() ? json(nullptr) : json(x.device);
     },
     true, "the whole node"},
};

const F kRepairFields[] = {
    {"absent_delay", "time", "",
     "how long an absent node may stay away before its pieces are rebuilt (vSAN's repair timer)",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.repair.absent_delay = ReadTime(f, k, c.repair.absent_delay);
     },
     [](const ClusterSpec& c) -> json { return TimeJson(c.repair.absent_delay); }},
    {"failed_delay", "time", "", "how long before a failed node's pieces are rebuilt",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.repair.failed_delay = ReadTime(f, k, c.repair.failed_delay);
     },
     [](const ClusterSpec& c) -> json { return TimeJson(c.repair.failed_delay); }},
    {"rate", "bytes", "bytes/s",
     "the most each node copies per second in a resync or rebuild; 0: as fast as it can",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.repair.rate = f.Bytes(k, c.repair.rate);
     },
     [](const ClusterSpec& c) -> json { return FormatBytes(c.repair.rate); }},
    {"depth", "integer 1..16", "pieces",
     "how many pieces each node copies at once in a resync or rebuild, each a window (up to 1 "
     "MiB) at a time: ScaleIO's concurrent rebuild I/O limit, 1 by default; more lets an "
     "unthrottled rebuild reach what its devices and links allow",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.repair.depth = static_cast<std::uint32_t>(f.Int(k, c.repair.depth, 1, 16));
     },
     [](const ClusterSpec& c) -> json { return c.repair.depth; }},
    {"depth_per", "node | device", "-",
     "what `depth` counts pieces for: each node, or each capacity device of a node (ScaleIO "
     "counts its limit per device: with two SSDs a node, depth 1 rebuilds a node two pieces at "
     "once, one onto each). A piece is its first byte's device's; where every piece spans all "
     "the devices, per device is per node. Refused with several capacity tiers, a log or data "
     "reduction",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.repair.depth_per_device = f.Choice(k, c.repair.depth_per_device ? "device" : "node",
                                            {"node", "device"}) == "device";
     },
     [](const ClusterSpec& c) -> json { return c.repair.depth_per_device ? "device" : "node"; }},
    {"spare", "integer 0..90", "% of each node",
     "room kept free on every node for rebuilds: a failed node's pieces are rebuilt there, "
     "spread over all the others (ScaleIO's spare capacity; vSAN's host rebuild reserve is one "
     "host's share, 100 / nodes); 0: onto an empty node in its place",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.repair.spare = static_cast<std::uint32_t>(f.Int(k, c.repair.spare, 0, 90));
     },
     [](const ClusterSpec& c) -> json { return c.repair.spare; }},
    {"detect", "time", "",
     "how long the cluster takes to notice a node gone down: until then I/O touching its pieces "
     "waits (a client's timeout; vSAN pauses a host's objects 5-7 s on isolation); 0: at once",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.repair.detect = ReadTime(f, k, c.repair.detect);
     },
     [](const ClusterSpec& c) -> json { return TimeJson(c.repair.detect); }},
};

const F kClusterFields[] = {
    {"nodes", "integer 1..16", "", "servers, each with the layout's tiers as its own stack",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       c.nodes = static_cast<std::uint32_t>(f.Int(k, c.nodes, 1, kMaxNodes));
     },
     [](const ClusterSpec& c) -> json { return c.nodes; }},
    {"network", "object (cluster.network below)", "", "each node's ports",
     &ReadObject<kNetworkFields>,
     [](const ClusterSpec& c) -> json {
       return WriteFields(std::span<const F>(kNetworkFields), c);
     },
     false, "its keys' defaults"},
    {"clients", "object (cluster.clients below)", "", "where the load runs",
     &ReadObject<kClientsFields>,
     [](const ClusterSpec& c) -> json {
       return WriteFields(std::span<const F>(kClientsFields), c);
     },
     false, "its keys' defaults"},
    {"protection", "object (cluster.protection below)", "", "copies across nodes",
     &ReadObject<kProtectionFields>,
     [](const ClusterSpec& c) -> json {
       return WriteFields(std::span<const F>(kProtectionFields), c);
     },
     false, "its keys' defaults"},
    {"placement", "object (cluster.placement below)", "", "where copies go, and which one reads",
     &ReadObject<kPlacementFields>,
     [](const ClusterSpec& c) -> json {
       return WriteFields(std::span<const F>(kPlacementFields), c);
     },
     false, "its keys' defaults"},
    {"cpu", "object (cluster.cpu below)", "", "each node's CPU as a queued resource",
     &ReadObject<kCpuFields>,
     [](const ClusterSpec& c) -> json { return WriteFields(std::span<const F>(kCpuFields), c); },
     false, "its keys' defaults"},
    {"failures", "array of {node, at, kind, back, device}, or one such object", "",
     "nodes that go away during the run (cluster.failures[] below)",
     [](JsonFields& f, std::string_view k, ClusterSpec& c) {
       const json* v = f.Raw(k);
       if (v == nullptr || !f.ok()) return;
       // One object is a list of one, so a matrix axis can name a failure.
       const json list = v->is_object() ? json::array({*v}) : *v;
       if (!list.is_array()) return f.Fail(k, "must be an array of failures or one failure");
       c.failures.clear();
       for (std::size_t i = 0; i < list.size(); ++i) {
         const std::string where =
             std::string(k) + (v->is_object() ? "" : "[" + std::to_string(i) + "]");
         if (!list[i].is_object()) return f.Fail(where, "must be an object {node, at, kind}");
         JsonFields sub = f.Child(list[i], where);
         ClusterFailure x;
         ReadFields(std::span<const FF>(kFailureFields), sub, x);
         f.Adopt(sub);
         if (!f.ok()) return;
         c.failures.push_back(x);
       }
     },
     [](const ClusterSpec& c) -> json {
       json a = json::array();
       for (const auto& x : c.failures)
         a.push_back(WriteFields(std::span<const FF>(kFailureFields), x));
       return a;
     },
     true, "none"},
    {"repair", "object (cluster.repair below)", "", "when and how fast nodes are repaired",
     &ReadObject<kRepairFields>,
     [](const ClusterSpec& c) -> json { return WriteFields(std::span<const F>(kRepairFields), c); },
     false, "its keys' defaults"},
};

}  // namespace

std::span<const F> ClusterFields() {
  return kClusterFields;
}
std::span<const F> ClusterNetworkFields() {
  return kNetworkFields;
}
std::span<const F> ClusterClientsFields() {
  return kClientsFields;
}
std::span<const F> ClusterProtectionFields() {
  return kProtectionFields;
}
std::span<const F> ClusterPlacementFields() {
  return kPlacementFields;
}
std::span<const F> ClusterCpuFields() {
  return kCpuFields;
}
std::span<const Field<ClusterFailure>> ClusterFailureFields() {
  return kFailureFields;
}
std::span<const F> ClusterRepairFields() {
  return kRepairFields;
}

std::string_view ToString(ClusterFailure::Kind k) {
  return k == ClusterFailure::Kind::kFailed ? "failed" : "absent";
}

Expected<ClusterSpec> ParseClusterJson(const nlohmann::json& j, std::string_view source) {
  JsonFields f(j, std::string(source), "cluster");
  ClusterSpec c;
  ReadFields(ClusterFields(), f, c);
  if (!f.ok()) return f.error();
  if (c.cpu.cores > 0 && c.cpu.per_io == 0 && c.cpu.per_kib == 0 && c.cpu.per_write_io == 0 &&
      c.cpu.per_write_kib == 0) {
    return MakeError(
        std::string(source) +
        ": cluster.cpu: cores without a cost; set per_io_ns or per_kib_ns, or cores 0");
  }
  if (c.client_restart > 0 && c.clients == ClusterClients::kHosts) {
    return MakeError(std::string(source) +
                     ": cluster.clients.restart: clients on hosts do not go down with a node; "
                     "restart is for where: nodes");
  }
  if (c.pieces() > c.nodes) {
    const std::string need =
        std::to_string(c.pieces()) + " nodes; the cluster has " + std::to_string(c.nodes);
    if (c.protection == ClusterProtection::kErasure) {
      return MakeError(std::string(source) + ": cluster.protection: " + std::to_string(c.data) +
                       " data + " + std::to_string(c.parity) + " parity chunks need " + need);
    }
    return MakeError(std::string(source) + ": cluster.protection.copies: " +
                     std::to_string(c.copies) + " copies need " + need);
  }
  for (std::size_t i = 0; i < c.failures.size(); ++i) {
    const ClusterFailure& x = c.failures[i];
    const std::string where = std::string(source) + ": cluster.failures[" + std::to_string(i) + "]";
    if (x.node >= c.nodes) {
      return MakeError(where + ".node: node " + std::to_string(x.node) +
                       " does not exist; the cluster has nodes 0.." + std::to_string(c.nodes - 1));
    }
    if (x.back && x.kind == ClusterFailure::Kind::kFailed) {
      return MakeError(where + ".back: a failed node does not come back; its pieces are rebuilt " +
                       "(use \"kind\": \"absent\")");
    }
    if (x.back && *x.back <= x.at) {
      return MakeError(where + ".back: must be after at");
    }
    if (!x.device.empty() && x.kind != ClusterFailure::Kind::kFailed) {
      return MakeError(where + ".kind: a device fails (\"failed\"); \"absent\" is for a node");
    }
  }
  return c;
}

nlohmann::json ClusterToJson(const ClusterSpec& c) {
  return WriteFields(ClusterFields(), c);
}

}  // namespace tierlab
