#pragma once
// Builtin profile families that load a volume the way the fleet tools
// storage engineers run do: VMFleet (DISKSPD in every VM of a cluster),
// HCIBench (vdbench in every VM of a vSAN cluster) and SQLIO. Each is an
// ordinary fio-style Profile, so the runner needs nothing of its own; the
// registry users see is BuiltinProfiles.h, which lists these after its own.
//
// How the tools' knobs become fio options:
// - A VM is a job: numjobs = VMs. Each VM works on its own region, as each
//   has its own virtual disk: size is the whole fleet's working set and
//   split_size gives job j its own size/numjobs from offset + j x
//   size/numjobs (Profile.h). A matrix axis on numjobs therefore re-divides
//   one working set among more VMs, as VMFleet's and HCIBench's sizing does
//   (they size each VM's disks from a total over the VM count).
// - DISKSPD's -t threads x -o outstanding I/Os per file (and SQLIO's -t x
//   -o) are modelled as one queue of t x o: iodepth = t x o per VM.
//   vdbench's threads per vmdk x vmdks per VM likewise: iodepth per VM.
// - HCIBench's vmdks are fio's files: nrfiles = vmdks, each its own region
//   inside the VM's part, the VM's I/Os round robin over them.
// - DISKSPD -w (write %) and vdbench rdpct are rwmixread (100 - w, rdpct);
//   -r / -rs and vdbench seekpct are percentage_random; -b and xfersize are
//   bs; DISKSPD -rdpct IO%/Target%:... is random_distribution=zoned.
// - Throughput caps (DISKSPD -g) in VMFleet's templates are relative
//   weights between the template's targets, scaled by its CPU sweep: they
//   set the read/write mix here, not a rate (add rate_iops to cap).
//
// The cache size is known only to the layout, so working sets are a % of
// the volume; each family's source says what the tool sizes it from.
// Preparation: every family writes its disks before it measures (VMFleet's
// write warm-up, HCIBench's ZERO/RANDOM disk prep, SQLIO creating its test
// file): these profiles are meant to run with precondition=fill. Timing is
// tierlab's (runtime 60 s after a 10 s ramp), not the tools' long warm-ups.
//
// docs/CONFIG.md, "Builtin profiles", has the table of families and sources.

#include <vector>

#include "bench/workload/BuiltinProfiles.h"

namespace tierlab {

// VMFleet's, then HCIBench's, then SQLIO's, in display order.
const std::vector<BuiltinProfile>& FleetProfiles();

}  // namespace tierlab
