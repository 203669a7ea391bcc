#pragma once
// Builds a simulated device from a catalog preset: SsdModel for ram, optane,
// nvme and ssd presets, HddModel for hdd presets. Layouts and tests go through
// this factory so a preset name is all they need.
//
// Data modes (ModelOptions::with_data):
//  - timing-only (default): requests with data == nullptr move no data and the
//    model allocates nothing per I/O; a buffer, if given, is left untouched.
//  - with-data: the device keeps its contents in a SparseStore and requires a
//    buffer on every read and write. Writes and discards are applied, and
//    reads copied out, at completion time, so a read observes every write that
//    completed before it was submitted. Overlapping requests that are in
//    flight together see an unspecified (but deterministic) order, as on a
//    real device.
//
// Determinism: the models use no wall clock and no global state; the seed
// only sets the HDD's initial spindle phase. The same submissions in the
// same order produce the same completion times.

#include <cstdint>
#include <memory>
#include <string>

#include "tiering/core/BlockDevice.h"
#include "tiering/devices/DevicePreset.h"

namespace tierlab {

struct ModelOptions {
  // Bytes; 0 = the preset's capacity. A smaller HDD keeps the preset's
  // mechanics: the full stroke and zone range map onto the given capacity,
  // so random IOPS stay datasheet-like (it is not a short-stroked disk).
  std::uint64_t capacity = 0;
  std::uint32_t block_size = 512;  // logical block size
  bool with_data = false;
  // HDD: reorder queued requests by shortest positioning time (NCQ/TCQ).
  bool ncq = true;
  std::uint32_t ncq_depth = 0;  // reorder window; 0 = the preset's depth
  // HDD rotational latency: false = from the platter's angular position
  // (deterministic, what NCQ exploits); true = always half a revolution.
  bool expected_rotation = false;
  std::uint64_t seed = 1;
  // Flash/RAM: the device's reads and writes take no time of their own, as
  // where a host CPU model already charges it (a RAM device under a layout's
  // "cpu": the CPU's costs are measured on mapped RAM files, whose copies
  // are that CPU's time, so the device's own latency would count them
  // twice). Flush and discard keep their costs; HDDs ignore it.
  bool time_on_host_cpu = false;
};

// The engine must outlive the device. Never returns null.
std::unique_ptr<BlockDevice> MakeModelDevice(Engine& engine, const DevicePreset& preset,
                                             std::string name, const ModelOptions& options = {});

}  // namespace tierlab
