#include "tiering/devices/UringQueue.h"

#include <fcntl.h>
#include <liburing.h>
#include <linux/falloc.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace tierlab {

std::string UringDisabledByEnvironment() {
  const char* v = std::getenv("TIERLAB_NO_IO_URING");
  if (v == nullptr || *v == '\0' || std::strcmp(v, "0") == 0) return {};
  return "io_uring turned off by TIERLAB_NO_IO_URING";
}

UringQueue::UringQueue() : ring_(std::make_unique<io_uring>()) {}

UringQueue::~UringQueue() {
  if (ready_) io_uring_queue_exit(ring_.get());
}

Expected<std::unique_ptr<UringQueue>> UringQueue::Open(int fd, std::uint32_t depth) {
  if (std::string off = UringDisabledByEnvironment(); !off.empty()) {
    return MakeError(off, ErrorKind::kIo);
  }
  std::unique_ptr<UringQueue> q(new UringQueue());
  io_uring_params p{};
  p.flags = IORING_SETUP_CQSIZE;
  p.cq_entries = 2 * depth;
  int r = io_uring_queue_init_params(depth, q->ring_.get(), &p);
  if (r < 0) {
    std::string why = std::string("io_uring_setup: ") + std::strerror(-r);
    if (r == -ENOSYS) why += " (kernel without io_uring)";
    if (r == -EPERM) why += " (see kernel.io_uring_disabled)";
    if (r == -ENOMEM) why += " (locked-memory limit, ulimit -l)";
    return MakeError(why, ErrorKind::kIo);
  }
  q->ready_ = true;
  q->fd_ = fd;
  return q;
}

io_uring_sqe* UringQueue::Next() {
  // The caller's slots keep prepared + in-kernel requests within the ring's
  // size, so an entry is free. No submission here to make room: only
  // Submit() sends, so the caller's count of what is in the kernel holds.
  return io_uring_get_sqe(ring_.get());
}

bool UringQueue::Read(void* tag, void* buf, std::uint32_t length, std::uint64_t offset) {
  io_uring_sqe* sqe = Next();
  if (sqe == nullptr) return false;
  io_uring_prep_read(sqe, fd_, buf, length, offset);
  io_uring_sqe_set_data(sqe, tag);
  return true;
}

bool UringQueue::Write(void* tag, const void* buf, std::uint32_t length, std::uint64_t offset,
                       bool dsync) {
  io_uring_sqe* sqe = Next();
  if (sqe == nullptr) return false;
  io_uring_prep_write(sqe, fd_, buf, length, offset);
  if (dsync) sqe->rw_flags = RWF_DSYNC;
  io_uring_sqe_set_data(sqe, tag);
  return true;
}

bool UringQueue::Fdatasync(void* tag) {
  io_uring_sqe* sqe = Next();
  if (sqe == nullptr) return false;
  io_uring_prep_fsync(sqe, fd_, IORING_FSYNC_DATASYNC);
  io_uring_sqe_set_data(sqe, tag);
  return true;
}

bool UringQueue::PunchHole(void* tag, std::uint64_t offset, std::uint64_t length) {
  io_uring_sqe* sqe = Next();
  if (sqe == nullptr) return false;
  io_uring_prep_fallocate(sqe, fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                          static_cast<off_t>(offset), static_cast<off_t>(length));
  io_uring_sqe_set_data(sqe, tag);
  return true;
}

int UringQueue::Submit() {
  return io_uring_submit(ring_.get());
}

std::uint32_t UringQueue::Prepared() const {
  return io_uring_sq_ready(ring_.get());
}

std::size_t UringQueue::Reap(std::span<Completion> out) {
  io_uring_cqe* cqe = nullptr;
  unsigned head = 0;
  std::size_t n = 0;
  io_uring_for_each_cqe(ring_.get(), head, cqe) {
    if (n == out.size()) break;
    out[n].tag = io_uring_cqe_get_data(cqe);
    out[n].res = cqe->res;
    ++n;
  }
  io_uring_cq_advance(ring_.get(), static_cast<unsigned>(n));
  return n;
}

int UringQueue::RingFd() const {
  return ring_->ring_fd;
}

}  // namespace tierlab
