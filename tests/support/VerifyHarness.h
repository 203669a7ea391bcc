#pragma once
// The data-verification harness: drives any BlockDevice (device or stack) with
// random reads, writes, flushes and discards of random sizes and alignments,
// several in flight, and compares every read with a reference image.
//
// Requests that overlap are never in flight together (their order would be
// undefined), non-overlapping ones are. Every written 8-byte word encodes its
// offset and a write sequence number, so a stale or misplaced block is caught.
// A failed write or discard leaves its range "unknown" until rewritten.
// Discarded blocks become "unknown" until rewritten (discard may or may not
// zero). At the end the whole region is read back and checked.

#include <cstdint>
#include <functional>
#include <string>

#include "tiering/core/BlockDevice.h"
#include "tiering/core/Engine.h"

namespace tierlab::testing {

struct VerifyOptions {
  std::uint64_t ops = 2000;
  std::uint64_t seed = 1;
  std::uint32_t max_in_flight = 8;
  std::uint64_t max_length = 64 * 1024;
  std::uint32_t align = 0;   // request granularity; 0 = the device's block size
  std::uint64_t region = 0;  // bytes from offset 0 to exercise; 0 = whole device
  double read_share = 0.45;
  double write_share = 0.45;
  double flush_share = 0.05;  // the rest are discards
  // Called after every completion with the number of completed ops; lets a
  // test inject events (fail a device, start a drain) mid-run.
  std::function<void(std::uint64_t)> on_complete;
};

struct VerifyResult {
  std::uint64_t reads = 0, writes = 0, flushes = 0, discards = 0;
  std::uint64_t mismatches = 0;  // blocks read back with wrong content
  std::uint64_t errors = 0;      // completions with a status other than ok
  std::string first_problem;     // a human-readable description of the first failure
  bool ok() const { return mismatches == 0 && errors == 0; }
};

// Runs the workload to completion on `engine` (calls engine.Run()).
VerifyResult RunVerify(Engine& engine, BlockDevice& dev, const VerifyOptions& options);

}  // namespace tierlab::testing
