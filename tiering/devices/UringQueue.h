#pragma once
// One io_uring instance serving one open file: the kernel queue of a
// FileDevice whose engine is io_uring (FileDevice.h has the device's rules).
//
// Requests are prepared into the submission ring, each tagged with the
// caller's pointer, and sent together by Submit() (one io_uring_enter per
// loop turn); completions are read from the completion ring in user space
// (no syscall).
//
// Nothing is registered with the ring. A registered file (IOSQE_FIXED_FILE)
// would save a file lookup per request, but it stays open until the kernel
// tears the ring down, which after a crash (SIGKILL) happens in a kernel
// worker some time after the process is gone: the file's lock goes with it,
// so a server restarted at once would find its own devices "in use" (the
// crash tests do exactly that). Buffers are not registered either: a
// request's memory belongs to whoever submits it (a cache line, an NBD
// buffer, a job's buffer), and registering each would cost more than the
// page pinning it saves.
//
// Wake-up: the ring's own descriptor is readable while the completion ring
// holds entries, so the engine can watch it directly (no eventfd).
//
// Capacity: at most `depth` requests prepared or in the kernel at once (the
// caller's slots bound it); the completion ring holds twice that, so it never
// overflows.
//
// Availability: a kernel built without io_uring (ENOSYS), one that forbids
// it (kernel.io_uring_disabled, a seccomp filter: EPERM) or a locked-memory
// limit too small for the rings (ENOMEM) makes Open fail with the reason;
// the environment variable TIERLAB_NO_IO_URING (any non-empty value other
// than 0) makes it fail the same way, to test the fallback on any kernel.
//
// Threading: the engine thread only. Destroying the queue cancels and waits
// for what is in the kernel (io_uring_queue_exit); callers complete nothing
// after that.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "tiering/core/Expected.h"

struct io_uring;
struct io_uring_sqe;

namespace tierlab {

class UringQueue {
 public:
  struct Completion {
    void* tag;
    int res;  // bytes transferred, 0, or -errno
  };

  // Sets up a ring of `depth` entries (1..4096) for `fd` (not owned).
  // The error is the reason alone (the caller names the file).
  static Expected<std::unique_ptr<UringQueue>> Open(int fd, std::uint32_t depth);
  ~UringQueue();
  UringQueue(const UringQueue&) = delete;
  UringQueue& operator=(const UringQueue&) = delete;

  // Each prepares one request; false if the submission ring is full (the
  // request is not prepared; a caller within `depth` never sees it).
  bool Read(void* tag, void* buf, std::uint32_t length, std::uint64_t offset);
  // `dsync`: RWF_DSYNC, the write is durable when it completes (FUA).
  bool Write(void* tag, const void* buf, std::uint32_t length, std::uint64_t offset, bool dsync);
  // fdatasync of the whole file, run by the kernel's workers.
  bool Fdatasync(void* tag);
  // fallocate(PUNCH_HOLE | KEEP_SIZE), run by the kernel's workers.
  bool PunchHole(void* tag, std::uint64_t offset, std::uint64_t length);

  // Sends every prepared request: how many the kernel took (the rest stay
  // prepared for the next call), or -errno.
  int Submit();
  // Requests prepared and not yet taken by the kernel.
  std::uint32_t Prepared() const;
  // Moves up to out.size() completions into `out`, hands their entries back
  // to the kernel, and returns how many.
  std::size_t Reap(std::span<Completion> out);
  int RingFd() const;

 private:
  UringQueue();
  // The next free submission entry, or null.
  io_uring_sqe* Next();

  std::unique_ptr<io_uring> ring_;
  bool ready_ = false;  // io_uring_queue_init succeeded
  int fd_ = -1;
};

// Why io_uring is off by the environment switch, or empty if it is not.
std::string UringDisabledByEnvironment();

}  // namespace tierlab
