#include "tiering/devices/FileDevice.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tiering/core/AlignedBuffer.h"
#include "tiering/devices/FileLock.h"

namespace tierlab {
namespace {

// The kernel's AIO completion ring, mapped into user space at the address
// io_setup returns (struct aio_ring in fs/aio.c). Reading it directly saves
// an io_getevents syscall per reap, as fio's userspace_reap and SPDK do.
struct AioRingHeader {
  unsigned id;
  unsigned nr;
  unsigned head;
  unsigned tail;
  unsigned magic;
  unsigned compat_features;
  unsigned incompat_features;
  unsigned header_length;
};
constexpr unsigned kAioRingMagic = 0xa10a10a1;

std::string Errno(int e) {
  return std::strerror(e);
}

// One line per process, however many devices fall back.
void WarnLibaioFallback(const std::string& path, const std::string& why) {
  static bool warned = false;
  if (warned) return;
  warned = true;
  std::fprintf(stderr, "tierlab: warning: %s: %s; using libaio\n", path.c_str(), why.c_str());
}

}  // namespace

const char* ToString(FileEngine e) {
  switch (e) {
    case FileEngine::kAuto: return "auto";
    case FileEngine::kIoUring: return "io_uring";
    case FileEngine::kLibaio: return "libaio";
  }
  return "?";
}

FileDevice::FileDevice(RealEngine& engine, std::string name)
    : BlockDevice(engine, std::move(name)) {}

FileDevice::~FileDevice() {
  if (real_engine_ != nullptr) real_engine_->RemovePoller(this);
  uring_.reset();                         // cancels and waits for requests in the kernel
  if (ctx_ != nullptr) io_destroy(ctx_);  // waits for requests in the kernel
  if (map_ != nullptr) munmap(map_, size_);
  if (eventfd_ >= 0) close(eventfd_);
  if (fd_ >= 0) close(fd_);
}

Expected<std::unique_ptr<FileDevice>> FileDevice::Open(RealEngine& engine, std::string name,
                                                       const FileDeviceOptions& o) {
  if (o.path.empty()) return MakeError("file device '" + name + "': empty path");
  const std::string& path = o.path;
  if (o.queue_depth < 1 || o.queue_depth > 4096) {
    return MakeError(path + ": queue depth must be 1..4096, got " + std::to_string(o.queue_depth));
  }
  if (o.create && o.read_only) return MakeError(path + ": cannot create a read-only device");

  std::unique_ptr<FileDevice> dev(new FileDevice(engine, std::move(name)));
  dev->path_ = path;
  dev->read_only_ = o.read_only;

  int flags = (o.read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC;
  if (o.create) flags |= O_CREAT;
  int fd = open(path.c_str(), flags | (o.direct ? O_DIRECT : 0), 0644);
  dev->buffered_ = !o.direct;
  if (fd < 0 && errno == EINVAL && o.direct) {
    fd = open(path.c_str(), flags, 0644);
    if (fd >= 0) {
      dev->buffered_ = true;
      std::fprintf(stderr,
                   "tierlab: warning: %s: O_DIRECT refused by the filesystem; using "
                   "buffered I/O\n",
                   path.c_str());
    }
  }
  if (fd < 0) {
    const int e = errno;
    return MakeError(path + ": cannot open: " + Errno(e), OpenErrorKind(e));
  }
  dev->fd_ = fd;

  struct stat st;
  if (fstat(fd, &st) != 0) return MakeError(path + ": fstat: " + Errno(errno), ErrorKind::kIo);
  if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
    return MakeError(path + ": not a regular file or block device");
  }
  // Before anything is read or changed: one user per file.
  if (auto r = LockWholeFile(fd, path, o.read_only ? LockMode::kShared : LockMode::kExclusive,
                             o.lock_wait_ms);
      !r.ok()) {
    return r.error();
  }
  std::uint64_t bytes = 0;
  if (S_ISBLK(st.st_mode)) {
    dev->is_block_device_ = true;
    int lbs = 0;
    if (ioctl(fd, BLKSSZGET, &lbs) != 0 || lbs <= 0) {
      return MakeError(path + ": BLKSSZGET: " + Errno(errno), ErrorKind::kIo);
    }
    if (ioctl(fd, BLKGETSIZE64, &bytes) != 0) {
      return MakeError(path + ": BLKGETSIZE64: " + Errno(errno), ErrorKind::kIo);
    }
    dev->block_size_ = static_cast<std::uint32_t>(lbs);
  } else {
    bytes = static_cast<std::uint64_t>(st.st_size);
    dev->block_size_ = 4096;
  }
  if (bytes < o.min_size) {
    return MakeError(path + ": " + std::to_string(bytes) + " bytes, shorter than the " +
                         std::to_string(o.min_size) + " it must have (truncated?)",
                     ErrorKind::kInconsistent);
  }
  if (o.check_head) {
    const std::size_t want = std::max<std::size_t>(4096, dev->block_size_);
    AlignedBuffer head(want, want);
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(want, bytes));
    std::size_t got = 0;
    if (n > 0) {
      // Whole blocks for O_DIRECT; a file's short tail comes back short.
      const ssize_t r = pread(fd, head.data(), want, 0);
      if (r < 0)
        return MakeError(path + ": reading the first block: " + Errno(errno), ErrorKind::kIo);
      got = std::min(n, static_cast<std::size_t>(r));
    }
    if (auto r = o.check_head(head.data(), got); !r.ok()) return r.error();
  }
  if (!dev->is_block_device_) {
    if (o.create && o.size > bytes) {
      if (ftruncate(fd, static_cast<off_t>(o.size)) != 0) {
        return MakeError(
            path + ": cannot extend to " + std::to_string(o.size) + " bytes: " + Errno(errno),
            ErrorKind::kIo);
      }
      bytes = o.size;
    }
  }
  dev->size_ = bytes - bytes % dev->block_size_;
  if (dev->size_ == 0) {
    return MakeError(path + ": size " + std::to_string(bytes) +
                     " bytes is smaller than one block (" + std::to_string(dev->block_size_) +
                     " bytes)");
  }

  struct statfs fs;
  const bool memory_fs = !dev->is_block_device_ && fstatfs(fd, &fs) == 0 &&
                         (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
  dev->submit_batch_ =
      o.submit_batch.value_or(memory_fs || dev->buffered_ ? 0 : kDefaultSubmitBatch);
  if (o.map_memory_files && memory_fs) {
    // A store through the mapping into a hole that tmpfs cannot back (full,
    // or at its size limit) kills the process with SIGBUS, where pwrite
    // returns ENOSPC. So a writable tmpfs file is mapped only once all of it
    // is allocated; if that fails, libaio serves it and a full tmpfs stays an
    // I/O error. ramfs has no limit (and no fallocate).
    const bool backed = o.read_only || fs.f_type == RAMFS_MAGIC ||
                        fallocate(fd, 0, 0, static_cast<off_t>(dev->size_)) == 0;
    void* m = backed ? mmap(nullptr, dev->size_, PROT_READ | (o.read_only ? 0 : PROT_WRITE),
                            MAP_SHARED, fd, 0)
                     : MAP_FAILED;
    // If the kernel refuses, libaio serves the file as on any filesystem.
    if (m != MAP_FAILED) dev->map_ = static_cast<std::byte*>(m);
  }

  // auto: libaio where the kernel completes reads and writes inside the
  // call (a memory filesystem, buffered I/O): there libaio does the copy in
  // io_submit, while io_uring hands such requests to its worker threads.
  const bool completes_in_call = memory_fs || dev->buffered_;
  if (o.engine == FileEngine::kIoUring || (o.engine == FileEngine::kAuto && !completes_in_call)) {
    auto q = UringQueue::Open(fd, o.queue_depth);
    if (q.ok()) {
      dev->uring_ = std::move(q.value());
    } else if (o.engine == FileEngine::kIoUring) {
      return MakeError(path + ": engine io_uring: " + q.error().message, ErrorKind::kIo);
    } else {
      WarnLibaioFallback(path, q.error().message);
    }
  }
  if (dev->uring_ == nullptr) {
    dev->eventfd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (dev->eventfd_ < 0) return MakeError(path + ": eventfd: " + Errno(errno), ErrorKind::kIo);
    const int r = io_setup(static_cast<int>(o.queue_depth), &dev->ctx_);
    if (r != 0) {
      dev->ctx_ = nullptr;
      return MakeError(path + ": io_setup(" + std::to_string(o.queue_depth) + "): " + Errno(-r) +
                           " (see /proc/sys/fs/aio-max-nr)",
                       ErrorKind::kIo);
    }
  }

  dev->slots_.resize(o.queue_depth);
  dev->free_.reserve(o.queue_depth);
  for (std::size_t i = dev->slots_.size(); i-- > 0;) dev->free_.push_back(&dev->slots_[i]);
  dev->batch_.reserve(o.queue_depth);
  dev->prepared_.reserve(o.queue_depth);
  dev->rejected_.reserve(o.queue_depth);
  dev->rejected_run_.reserve(o.queue_depth);
  if (dev->uring_ != nullptr) {
    dev->completions_.resize(o.queue_depth);
  } else {
    dev->events_.resize(o.queue_depth);
  }
  engine.AddPoller(dev.get());
  dev->real_engine_ = &engine;
  return dev;
}

void FileDevice::SubmitImpl(const IoRequest& req, IoCallback done) {
  switch (req.op) {
    case IoOp::kRead:
    case IoOp::kWrite:
      // O_DIRECT needs the memory aligned too; we refuse rather than bounce.
      if (reinterpret_cast<std::uintptr_t>(req.data) % block_size_ != 0 ||
          (req.op == IoOp::kWrite && read_only_)) {
        FinishAsync(std::move(done), Status::kInvalid);
        return;
      }
      if (map_ != nullptr) {
        mapped_.push_back(Waiting{req, std::move(done)});
        return;
      }
      break;
    case IoOp::kDiscard:
      if (read_only_) {
        FinishAsync(std::move(done), Status::kInvalid);
        return;
      }
      // A file's hole punch is an io_uring command; the rest run here.
      if (uring_ == nullptr || is_block_device_ || map_ != nullptr) {
        FinishAsync(std::move(done), DiscardNow(req));
        return;
      }
      break;
    case IoOp::kFlush:
      if (uring_ == nullptr && !aio_fsync_ok_) {
        FinishAsync(std::move(done), fdatasync(fd_) == 0 ? Status::kOk : FromErrno(errno));
        return;
      }
      break;
  }
  if (free_.empty() || !waiting_.empty()) {
    waiting_.push_back(Waiting{req, std::move(done)});
    return;
  }
  Start(req, std::move(done));
}

void FileDevice::Start(const IoRequest& req, IoCallback done) {
  Slot* s = free_.back();
  free_.pop_back();
  s->done = std::move(done);
  s->kind = SlotKind::kRw;
  s->expect = req.length;
  if (uring_ != nullptr) {
    s->req = req;
    if (req.op == IoOp::kFlush) s->kind = SlotKind::kFsync;
    if (req.op == IoOp::kDiscard) s->kind = SlotKind::kDiscard;
    if (req.op == IoOp::kWrite && req.fua() && !dsync_ok_) s->kind = SlotKind::kWriteThenSync;
    PrepUring(s);
    return;
  }
  if (req.op == IoOp::kFlush) {
    PrepSync(s);
  } else {
    if (req.op == IoOp::kRead) {
      io_prep_pread(&s->cb, fd_, req.data, req.length, static_cast<long long>(req.offset));
    } else {
      io_prep_pwrite(&s->cb, fd_, req.data, req.length, static_cast<long long>(req.offset));
      if (req.fua()) {
        if (dsync_ok_) {
          s->cb.aio_rw_flags = RWF_DSYNC;
        } else {
          s->kind = SlotKind::kWriteThenSync;
        }
      }
    }
    // io_prep_* cleared the iocb: without io_set_eventfd it signals nothing.
    s->blind = inline_;
    if (!s->blind) io_set_eventfd(&s->cb, eventfd_);
    s->cb.data = s;
  }
  batch_.push_back(&s->cb);
  if (submit_batch_ != 0 && batch_.size() >= submit_batch_) {
    // Sent early, outside the turn's Flush: Poll's inline judgement is about
    // what went out right before it, so this batch must not count.
    const bool judged = submitted_;
    Flush();
    submitted_ = judged;
  }
}

void FileDevice::PrepUring(Slot* s) {
  bool ok = !uring_failed_;
  if (ok) {
    const IoRequest& r = s->req;
    if (s->kind == SlotKind::kFsync) {
      ok = uring_->Fdatasync(s);
    } else if (s->kind == SlotKind::kDiscard) {
      ok = uring_->PunchHole(s, r.offset, r.length);
    } else if (r.op == IoOp::kRead) {
      ok = uring_->Read(s, r.data, r.length, r.offset);
    } else {
      ok = uring_->Write(s, r.data, r.length, r.offset, r.fua() && s->kind == SlotKind::kRw);
    }
  }
  if (ok) {
    prepared_.push_back(s);
    if (submit_batch_ != 0 && prepared_.size() >= submit_batch_) FlushUring();
  } else {
    rejected_.push_back(Rejected{s, Status::kIoError});
  }
}

void FileDevice::PrepSync(Slot* s) {
  io_prep_fdsync(&s->cb, fd_);
  io_set_eventfd(&s->cb, eventfd_);
  s->cb.data = s;
  s->kind = SlotKind::kFsync;
  s->blind = false;
}

void FileDevice::AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                                AllocationMap& out) const {
  if (is_block_device_) {
    BlockDevice::AllocationImpl(offset, length, max_extents, out);
    return;
  }
  const std::uint64_t end = offset + length;
  std::uint64_t pos = offset;
  while (pos < end && out.size() <= max_extents) {
    const off_t data = lseek(fd_, static_cast<off_t>(pos), SEEK_DATA);
    if (data < 0) {
      // ENXIO: no data from pos to the end of the file. Anything else (an
      // old kernel, EINTR): not known, so data.
      AppendExtent(out, end - pos, errno == ENXIO);
      return;
    }
    const std::uint64_t data_at = std::min(end, static_cast<std::uint64_t>(data));
    AppendExtent(out, data_at - pos, true);
    pos = data_at;
    if (pos == end) return;
    const off_t hole = lseek(fd_, static_cast<off_t>(pos), SEEK_HOLE);
    // A failure here, or a hole reported at pos itself (the file changed
    // between the two calls): the rest is not known.
    const std::uint64_t hole_at =
        hole <= static_cast<off_t>(pos) ? end : std::min(end, static_cast<std::uint64_t>(hole));
    AppendExtent(out, hole_at - pos, false);
    pos = hole_at;
  }
}

Status FileDevice::DiscardNow(const IoRequest& req) {
  if (map_ != nullptr) {
    // Zeroed in place instead of punched: a hole would let a later store
    // through the mapping hit SIGBUS on a full tmpfs (see Open).
    std::memset(map_ + req.offset, 0, req.length);
    return Status::kOk;
  }
  int rc;
  if (is_block_device_) {
    std::uint64_t range[2] = {req.offset, req.length};
    rc = ioctl(fd_, BLKDISCARD, range);
  } else {
    rc = fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(req.offset),
                   static_cast<off_t>(req.length));
  }
  if (rc == 0) return Status::kOk;
  const int e = errno;
  if (e == EOPNOTSUPP || e == ENOTTY || e == ENOSYS) return Status::kNotSupported;
  return FromErrno(e);
}

void FileDevice::FlushUring() {
  while (!prepared_.empty()) {
    const int r = uring_->Submit();
    ++submit_calls_;
    if (r > 0) {
      in_kernel_ += static_cast<std::uint32_t>(r);
      prepared_.erase(prepared_.begin(), prepared_.begin() + r);
      continue;
    }
    if (r == -EINTR) continue;
    // Out of kernel resources, or completions to reap first: next turn.
    if ((r == -EAGAIN || r == -EBUSY) && in_kernel_ > 0) return;
    // The ring cannot take requests: those prepared fail, and so will every
    // later one (they stay in the ring, never sent, until it is destroyed).
    uring_failed_ = true;
    const Status st = r == 0 || r == -EAGAIN || r == -EBUSY ? Status::kIoError : FromErrno(-r);
    for (Slot* s : prepared_) rejected_.push_back(Rejected{s, st});
    prepared_.clear();
  }
}

void FileDevice::Flush() {
  if (uring_ != nullptr) {
    FlushUring();
    return;
  }
  std::size_t done = 0;  // batch_ entries handled (submitted or refused)
  while (done < batch_.size()) {
    const long n = static_cast<long>(batch_.size() - done);
    const int r = io_submit(ctx_, n, batch_.data() + done);
    ++submit_calls_;
    if (r > 0) {
      for (std::size_t i = done; i < done + static_cast<std::size_t>(r); ++i) {
        const Slot* slot = static_cast<const Slot*>(batch_[i]->data);
        if (slot->blind) ++blind_in_kernel_;
        if (slot->kind == SlotKind::kFsync) ++syncs_in_kernel_;
      }
      in_kernel_ += static_cast<std::uint32_t>(r);
      done += static_cast<std::size_t>(r);
      submitted_ = true;
      continue;
    }
    if (r == -EINTR) continue;
    // Out of kernel resources with requests pending: retry after they complete.
    if (r == -EAGAIN && in_kernel_ > 0) break;
    // The first iocb of the rest was refused.
    Slot* s = static_cast<Slot*>(batch_[done]->data);
    if ((r == -EINVAL || r == -EOPNOTSUPP) && s->kind == SlotKind::kFsync) {
      // Old kernel without generic aio fsync: sync inline from now on.
      aio_fsync_ok_ = false;
      ++done;
      rejected_.push_back(Rejected{s, fdatasync(fd_) == 0 ? Status::kOk : FromErrno(errno)});
      continue;
    }
    if ((r == -EINVAL || r == -EOPNOTSUPP) && (s->cb.aio_rw_flags & RWF_DSYNC) != 0) {
      // Kernel without per-request RWF_DSYNC: plain write, then a sync.
      dsync_ok_ = false;
      s->cb.aio_rw_flags = 0;
      s->kind = SlotKind::kWriteThenSync;
      continue;  // resubmit the same iocb
    }
    ++done;
    rejected_.push_back(Rejected{s, r == 0 || r == -EAGAIN ? Status::kIoError : FromErrno(-r)});
  }
  batch_.erase(batch_.begin(), batch_.begin() + static_cast<std::ptrdiff_t>(done));
}

int FileDevice::RunMapped() {
  // Callbacks may queue more: those wait for the next turn, as if submitted.
  mapped_run_.swap(mapped_);
  for (Waiting& w : mapped_run_) {
    std::byte* file = map_ + w.req.offset;
    if (w.req.op == IoOp::kRead) {
      std::memcpy(w.req.data, file, w.req.length);
    } else {
      std::memcpy(file, w.req.data, w.req.length);
    }
    Finish(w.done, Status::kOk);
  }
  const int n = static_cast<int>(mapped_run_.size());
  mapped_run_.clear();
  return n;
}

int FileDevice::Poll() {
  int delivered = mapped_.empty() ? 0 : RunMapped();
  if (!rejected_.empty()) {
    // Callbacks may add more (a request that cannot be prepared): those are
    // delivered on the next turn.
    rejected_run_.swap(rejected_);
    for (const Rejected& r : rejected_run_) {
      Release(r.slot, r.status);
      ++delivered;
    }
    rejected_run_.clear();
  }
  if (in_kernel_ == 0) return delivered;

  if (uring_ != nullptr) {
    // Entries are handed back before callbacks run (they may submit more).
    const std::size_t got = uring_->Reap(completions_);
    in_kernel_ -= static_cast<std::uint32_t>(got);
    for (std::size_t i = 0; i < got; ++i) {
      Complete(static_cast<Slot*>(completions_[i].tag), completions_[i].res);
    }
    return delivered + static_cast<int>(got);
  }

  int n = 0;
  auto* ring = reinterpret_cast<AioRingHeader*>(ctx_);
  if (ring->magic == kAioRingMagic && ring->incompat_features == 0) {
    const auto* ring_events = reinterpret_cast<const io_event*>(ring + 1);
    unsigned head = ring->head;
    const unsigned tail = __atomic_load_n(&ring->tail, __ATOMIC_ACQUIRE);
    const unsigned nr = ring->nr;
    while (head != tail && n < static_cast<int>(events_.size())) {
      events_[n++] = ring_events[head];
      head = head + 1 == nr ? 0 : head + 1;
    }
    // Give the entries back to the kernel before running callbacks.
    __atomic_store_n(&ring->head, head, __ATOMIC_RELEASE);
  } else {
    timespec zero{0, 0};
    n = io_getevents(ctx_, 0, static_cast<long>(events_.size()), events_.data(), &zero);
    if (n < 0) n = 0;  // EINTR: try again next turn
  }
  in_kernel_ -= static_cast<std::uint32_t>(n);
  for (int i = 0; i < n; ++i) {
    const Slot* slot = static_cast<const Slot*>(events_[i].data);
    if (slot->blind) --blind_in_kernel_;
    if (slot->kind == SlotKind::kFsync) --syncs_in_kernel_;
  }
  // Poll runs right after Flush in the same turn: if no read or write is
  // left in the kernel, the device completed them inside io_submit (flushes
  // run in a kernel worker and say nothing about that).
  if (submitted_) {
    submitted_ = false;
    inline_ = in_kernel_ == syncs_in_kernel_;
  }
  if (blind_in_kernel_ > 0) {
    // Requests without the eventfd are still out: nothing would wake a
    // sleeping loop for them, so signal it ourselves until they are reaped.
    inline_ = false;
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t w = write(eventfd_, &one, sizeof one);
  }
  for (int i = 0; i < n; ++i) {
    Complete(static_cast<Slot*>(events_[i].data), static_cast<long>(events_[i].res));
  }
  return delivered + n;
}

void FileDevice::Complete(Slot* s, long res) {
  Status st = Status::kOk;
  const bool transfer = s->kind == SlotKind::kRw || s->kind == SlotKind::kWriteThenSync;
  if (uring_ != nullptr && (res == -EINVAL || res == -EOPNOTSUPP) && s->kind == SlotKind::kRw &&
      s->req.op == IoOp::kWrite && s->req.fua() && dsync_ok_) {
    // Kernel without per-request RWF_DSYNC: plain write, then a sync.
    dsync_ok_ = false;
    s->kind = SlotKind::kWriteThenSync;
    PrepUring(s);
    return;
  }
  if (res < 0) {
    st = FromErrno(static_cast<int>(-res));
    if (s->kind == SlotKind::kDiscard && (res == -EOPNOTSUPP || res == -ENOSYS)) {
      st = Status::kNotSupported;
    }
  } else if (transfer && static_cast<std::uint64_t>(res) != s->expect) {
    st = Status::kIoError;  // short transfer: the file shrank under us, or media trouble
  }
  if (st == Status::kOk && s->kind == SlotKind::kWriteThenSync) {
    // FUA fallback: the write landed; make it durable before completing.
    if (uring_ != nullptr) {
      s->kind = SlotKind::kFsync;
      PrepUring(s);
      return;
    }
    if (aio_fsync_ok_) {
      PrepSync(s);
      batch_.push_back(&s->cb);
      return;
    }
    st = fdatasync(fd_) == 0 ? Status::kOk : FromErrno(errno);
  }
  Release(s, st);
}

void FileDevice::Release(Slot* s, Status status) {
  IoCallback done = std::move(s->done);
  free_.push_back(s);
  while (!waiting_.empty() && !free_.empty()) {
    Waiting w = std::move(waiting_.front());
    waiting_.pop_front();
    if (w.req.op == IoOp::kFlush && uring_ == nullptr && !aio_fsync_ok_) {
      FinishAsync(std::move(w.done), fdatasync(fd_) == 0 ? Status::kOk : FromErrno(errno));
      continue;
    }
    Start(w.req, std::move(w.done));
  }
  Finish(done, status);
}

bool FileDevice::Busy() const {
  return in_kernel_ > 0 || !batch_.empty() || !prepared_.empty() || !waiting_.empty() ||
         !rejected_.empty() || !mapped_.empty();
}

}  // namespace tierlab
