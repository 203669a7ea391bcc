#pragma once
// Reads fio job files (INI) into Profiles.
//
// Syntax accepted, as fio: `[section]` headers; `[global]` sets defaults for
// the job sections that follow it (a later [global] adds to / overrides them
// for later jobs only); `key=value` and bare `key` (flags such as
// time_based); blank lines; surrounding whitespace and CR line ends.
// Comments: as fio, everything from the first `;` or `#` of a line on
// (whole-line and trailing). Every other section is one job, named after the
// section unless `name=` says otherwise. Options apply in file order, so
// `rwmixwrite=30` after `rwmixread=50` wins, as in fio.
//
// `${VAR}` in a value is replaced by the environment variable VAR (empty if
// unset), as fio. fio's reserved keywords ($pagesize, $mb_memory, $ncpus)
// and its arithmetic are not supported (error). Any other `$` is kept.
//
// `include FILE` (in a section, as fio) reads FILE's options into that
// section: FILE as given if it exists, else relative to the including file's
// directory (fio's order). An included file has no sections and may include
// others, at most kMaxIncludeDepth deep; a cycle is an error naming the
// line. Includes need a file (FioParseOptions::path); parsing text alone
// rejects them.
//
// Not supported (error): options before the first section, fio options
// outside Profile.h's list. An unknown option is an error naming it and its
// line ("job.fio:7: unknown option 'verify' (tierlab does not support it;
// use --ignore-unknown to skip it)") unless `ignore_unknown`, which skips it
// and lists it in `ignored`.
// Errors: "<file>:<line>: <option>: <reason>", exit code 2.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "bench/workload/Profile.h"
#include "tiering/core/Expected.h"

namespace tierlab {

inline constexpr int kMaxIncludeDepth = 16;

struct FioParseOptions {
  bool ignore_unknown = false;
  // The job file's path: includes resolve against its directory. Empty:
  // `include` is an error.
  std::string path;
  // Set: receives each skipped unknown option's name once, in file order.
  std::vector<std::string>* ignored = nullptr;
  // Set: receives what fio would print as a note about a job, one line each
  // ("job.fio:3: [j]: ioengine=psync is synchronous: iodepth 16 capped at
  // 1, as fio does").
  std::vector<std::string>* notes = nullptr;
  // Set: fio's "global options" (the [global] options before the last job)
  // and per job its "job options" (those written in its section, includes
  // expanded), as {"key": "value"} objects of strings; a later value of a
  // key wins, a bare flag is "".
  nlohmann::json* global_options = nullptr;
  std::vector<nlohmann::json>* job_options = nullptr;
};

Expected<std::vector<Profile>> ParseFioJobFile(std::string_view text, std::string_view file_name,
                                               const FioParseOptions& options);
Expected<std::vector<Profile>> ParseFioJobFile(std::string_view text, std::string_view file_name,
                                               bool ignore_unknown);

}  // namespace tierlab
