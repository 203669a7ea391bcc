#pragma once
// A resource that now and then does nothing for a while: `per_second` times
// a second at random it is away for `duration`. A core's stalls (the host
// or hypervisor taking it; tiering/targets/NodeCpu.h) and a device's pauses
// (a virtual disk's backend, a drive's housekeeping; DevicePreset.h) are
// both lists of these classes, measured alike (bench/lab/HostStalls.h,
// DevicePauses.h) and spelled alike in files (layouts/InterruptionFields.h).
//
// Header only.

#include "tiering/core/IoRequest.h"

namespace tierlab {

struct Interruption {
  Nanos duration = 0;     // how long the resource is away
  double per_second = 0;  // how often, a second of the time it runs
};

}  // namespace tierlab
