#pragma once
// Named profiles a user runs without writing a file (`tierlab profiles`
// lists them), modelled on the fio/VMFleet/HCIBench runs storage reviews
// publish. The one registry of builtins: the fleet families
// (FleetProfiles.h) are listed and found here too.
//
// Defaults, chosen to saturate a hybrid array the way HCIBench/VMFleet do:
// iodepth 32 x numjobs 4 (128 outstanding I/Os per volume) for small random
// I/O; 64k sequential uses iodepth 16 x numjobs 4 with each job streaming
// its own quarter of the volume (size=25%, offset_increment=25%), since fio's
// default of every job reading the same region would turn a sequential test
// into a cache test. runtime 60s, ramp_time 10s. Random offsets are drawn
// with repeats (norandommap), as DISKSPD and vdbench draw them: fio's
// random map makes a working set larger than the cache hit in cycles of a
// pass. Override any field with a JSON merge patch (Profile.h).
//
// Method (docs/METHODOLOGY.md), the same for every builtin, set by
// MakeBuiltin: warmup=fast (the cache and tiers warmed by the job's own
// stream without time) and the SNIA PTS steady state, ss=snia over five
// rounds of 1 s (ss_dur=5s), which ends the ramp once met, so ramp_time (10
// s) is the longest ramp.
//
// HCIBench's "easy run" 4k 50%-random profile is vdbench seekpct=50 at four
// read ratios; it is four profiles, hcibench-4k-50rand-r0/-r30/-r70/-r100.
//
// Groups: a group name stands for every builtin whose name starts with it
// and a dash (ExpandProfileName): `hcibench-4k-50rand` for those four, and
// each fleet family by its tool's name (`vmfleet`, `hcibench`, `sqlio`).

#include <string>
#include <string_view>
#include <vector>

#include "bench/workload/Profile.h"
#include "tiering/core/Expected.h"

namespace tierlab {

struct BuiltinProfileInfo {
  std::string name;
  std::string description;  // one line, for `tierlab profiles`
  // Where its numbers come from (tool, file or page, and how tierlab maps
  // them), for `tierlab profiles show`.
  std::string_view source;
};

// A builtin as its family defines it: the registry's entries.
struct BuiltinProfile {
  BuiltinProfileInfo info;
  Profile profile;  // profile.name == info.name
};

// A family's entry: `p` named `name`, with its description and source, and
// the builtins' method (warm-up and steady state, above).
BuiltinProfile MakeBuiltin(std::string name, std::string description, std::string_view source,
                           Profile p);

// Every builtin, in display order (groups are listed as their members).
const std::vector<BuiltinProfileInfo>& BuiltinProfileList();

// The group names, in display order, with what each stands for.
struct BuiltinGroupInfo {
  std::string_view name;
  std::string_view description;
};
const std::vector<BuiltinGroupInfo>& BuiltinGroupList();

// One builtin by exact name; the error lists the valid names.
Expected<Profile> FindBuiltinProfile(std::string_view name);

// A builtin or a group of builtins (`hcibench-4k-50rand`) → profiles.
Expected<std::vector<Profile>> ExpandProfileName(std::string_view name);

}  // namespace tierlab
