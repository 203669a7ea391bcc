#include "cli/ExitCode.h"

namespace tierlab::cli {

int ExitCodeFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInput: return kExitUsage;
    case ErrorKind::kInUse:
    case ErrorKind::kInconsistent: return kExitCheckFailed;
    case ErrorKind::kIo: return kExitIo;
  }
  return kExitIo;
}

}  // namespace tierlab::cli
