#pragma once
// The figures of a modelled CPU (NodeCpu.h) as a layout gives them: a
// one-node layout's "cpu" (HostCpuSpec.h) and a cluster's "cluster.cpu"
// (ClusterSpec.h) take the same keys for a request's costs, the host's
// stalls and its speed, one table for both; each has its own "cores" (a host has at
// least one; a cluster's 0 means its CPUs are not modelled).

#include <array>
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "layouts/FieldTable.h"
#include "layouts/InterruptionFields.h"
#include "tiering/targets/NodeCpu.h"

namespace tierlab {

template <typename Spec, NodeCpuSpec Spec::*kCpu, Nanos NodeCpuSpec::*kMember>
void ReadCpuNs(JsonFields& f, std::string_view k, Spec& s) {
  Nanos& v = (s.*kCpu).*kMember;
  v = f.Int(k, v, 0, 1'000'000'000);
}

template <typename Spec, NodeCpuSpec Spec::*kCpu, Nanos NodeCpuSpec::*kMember>
nlohmann::json WriteCpuNs(const Spec& s) {
  return (s.*kCpu).*kMember;
}

template <typename Spec, NodeCpuSpec Spec::*kCpu>
void ReadCpuStallsOf(JsonFields& f, std::string_view k, Spec& s) {
  ReadInterruptions(f, k, kCpuStallKeys, (s.*kCpu).stalls);
}

template <typename Spec, NodeCpuSpec Spec::*kCpu>
nlohmann::json WriteCpuStallsOf(const Spec& s) {
  return InterruptionsJson((s.*kCpu).stalls, kCpuStallKeys);
}

// A CPU's speed over time ("speed": {"window_ns": 1000000, "levels":
// [0.93, 1.0, 1.12]}, NodeCpu.h): read into `out` (left as it was on an
// error, which `f` keeps, or when absent); the writer's null leaves out one
// speed.
void ReadCpuSpeed(JsonFields& f, std::string_view k, CpuSpeedSpread& out);
nlohmann::json CpuSpeedJson(const CpuSpeedSpread& speed);

template <typename Spec, NodeCpuSpec Spec::*kCpu>
void ReadCpuSpeedOf(JsonFields& f, std::string_view k, Spec& s) {
  ReadCpuSpeed(f, k, (s.*kCpu).speed);
}

template <typename Spec, NodeCpuSpec Spec::*kCpu>
nlohmann::json WriteCpuSpeedOf(const Spec& s) {
  return CpuSpeedJson((s.*kCpu).speed);
}

// The rows after "cores", for a Spec whose CPU figures are at `kCpu`.
template <typename Spec, NodeCpuSpec Spec::*kCpu>
constexpr std::array<Field<Spec>, 6> CpuCostFields() {
  return {{
      {"per_io_ns", "integer 0..1e9", "ns", "CPU time per request it serves",
       &ReadCpuNs<Spec, kCpu, &NodeCpuSpec::per_io>, &WriteCpuNs<Spec, kCpu, &NodeCpuSpec::per_io>},
      {"per_kib_ns", "integer 0..1e9", "ns", "and per KiB the request carries",
       &ReadCpuNs<Spec, kCpu, &NodeCpuSpec::per_kib>,
       &WriteCpuNs<Spec, kCpu, &NodeCpuSpec::per_kib>},
      {"per_write_io_ns", "integer 0..1e9", "ns",
       "a write's per request, where it differs (0: per_io_ns)",
       &ReadCpuNs<Spec, kCpu, &NodeCpuSpec::per_write_io>,
       &WriteCpuNs<Spec, kCpu, &NodeCpuSpec::per_write_io>},
      {"per_write_kib_ns", "integer 0..1e9", "ns",
       "a write's per KiB, where it differs (0: per_kib_ns)",
       &ReadCpuNs<Spec, kCpu, &NodeCpuSpec::per_write_kib>,
       &WriteCpuNs<Spec, kCpu, &NodeCpuSpec::per_write_kib>},
      {"stalls", "array of {duration_ns, per_second}", "",
       "the host taking a core away: per class, how long and how often on each core (none: "
       "never)",
       &ReadCpuStallsOf<Spec, kCpu>, &WriteCpuStallsOf<Spec, kCpu>, true, "none"},
      {"speed", "{window_ns, levels: array of numbers > 0}", "",
       "the host's speed over time: each window of a core's time runs at one of the levels, "
       "drawn at random, their mean the costs' (none: one speed)",
       &ReadCpuSpeedOf<Spec, kCpu>, &WriteCpuSpeedOf<Spec, kCpu>, true, "none"},
  }};
}

// `head`'s rows, then `tail`'s.
template <typename Spec, std::size_t N, std::size_t M>
constexpr std::array<Field<Spec>, N + M> JoinFields(const std::array<Field<Spec>, N>& head,
                                                    const std::array<Field<Spec>, M>& tail) {
  std::array<Field<Spec>, N + M> all{};
  for (std::size_t i = 0; i < N; ++i) all[i] = head[i];
  for (std::size_t i = 0; i < M; ++i) all[N + i] = tail[i];
  return all;
}

}  // namespace tierlab
