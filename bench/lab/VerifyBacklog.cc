#include "bench/lab/VerifyBacklog.h"

namespace tierlab {

bool VerifyBacklog::Wants(std::size_t waiting, bool last_was_read) {
  if (waiting == 0) return false;
  if (left_ == 0 && waiting % backlog_ == 0 && !last_was_read) left_ = batch_;
  return left_ != 0;
}

}  // namespace tierlab
