#pragma once
// Reads fio job files (INI) into Profiles.
//
// Syntax accepted, as fio: `[section]` headers; `[global]` sets defaults for
// the job sections that follow it (a later [global] adds to / overrides them
// for later jobs only); `key=value` and bare `key` (flags such as
// time_based); whole-line comments starting with `;` or `#`; blank lines;
// surrounding whitespace and CR line ends. Every other section is one job,
// named after the section unless `name=` says otherwise. Options apply in
// file order, so `rwmixwrite=30` after `rwmixread=50` wins, as in fio.
//
// Not supported (error): options before the first section, `include`,
// `$VAR` expansion in values, fio options outside Profile.h's list. An
// unknown option is an error naming it and its line
// ("job.fio:7: unknown option 'verify' (tierlab does not support it; use
// --ignore-unknown to skip it)") unless `ignore_unknown`, which skips it.
// Errors: "<file>:<line>: <option>: <reason>", exit code 2.

#include <string_view>
#include <vector>

#include "bench/workload/Profile.h"
#include "tiering/core/Expected.h"

namespace tierlab {

Expected<std::vector<Profile>> ParseFioJobFile(std::string_view text, std::string_view file_name,
                                               bool ignore_unknown);

}  // namespace tierlab
