#include "tiering/core/Status.h"

#include <cerrno>

namespace tierlab {

int ToErrno(Status s) {
  switch (s) {
    case Status::kOk: return 0;
    case Status::kIoError: return EIO;
    case Status::kInvalid: return EINVAL;
    case Status::kNoSpace: return ENOSPC;
    case Status::kNotSupported: return EOPNOTSUPP;
    case Status::kShutdown: return ESHUTDOWN;
  }
  return EIO;
}

Status FromErrno(int err) {
  switch (err) {
    case 0: return Status::kOk;
    case EINVAL: return Status::kInvalid;
    case ENOSPC: return Status::kNoSpace;
    case EOPNOTSUPP: return Status::kNotSupported;
    case ESHUTDOWN: return Status::kShutdown;
    default: return Status::kIoError;
  }
}

std::string_view ToString(Status s) {
  switch (s) {
    case Status::kOk: return "ok";
    case Status::kIoError: return "EIO";
    case Status::kInvalid: return "EINVAL";
    case Status::kNoSpace: return "ENOSPC";
    case Status::kNotSupported: return "EOPNOTSUPP";
    case Status::kShutdown: return "ESHUTDOWN";
  }
  return "unknown";
}

}  // namespace tierlab
