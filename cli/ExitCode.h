#pragma once
// The process exit codes of `tierlab` (DESIGN.md, "Errors"), and the one
// place that turns what went wrong (ErrorKind, from the layers below) into
// one of them: the bottom layers say what failed, the CLI edge decides
// what the process reports.

#include "tiering/core/Expected.h"

namespace tierlab::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,  // a regression or a consistency check failed; busy
  kExitUsage = 2,        // usage or input error
  kExitIo = 3,           // runtime I/O error
};

// kInput: 2; kInUse and kInconsistent: 1; kIo: 3.
int ExitCodeFor(ErrorKind kind);

}  // namespace tierlab::cli
