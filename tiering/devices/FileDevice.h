#pragma once
// A regular file or a block device, driven through the kernel's asynchronous
// I/O interfaces with O_DIRECT: io_uring (liburing; UringQueue.h) or Linux
// native AIO (libaio: io_setup / io_submit / io_getevents).
//
// Engine choice (FileDeviceOptions::engine): `io_uring`, `libaio`, or `auto`
// (the default), the faster of the two where each was measured
// (docs/PERFORMANCE.md, "Real I/O path"): io_uring for direct I/O to disks
// and block devices (it also runs file discards asynchronously); libaio for
// files on memory filesystems and buffered I/O, where the kernel completes
// a read or write inside the submitting call under libaio but hands it to
// io_uring's worker threads (tmpfs cannot do it without blocking), at half
// the rate. Where the kernel refuses io_uring, auto uses libaio and says why
// in one line on stderr per process; an explicit `io_uring` the kernel
// refuses is an error naming the file and the reason.
//
// Engine: a FileDevice needs a RealEngine (the factory takes one). It is a
// Poller of that engine: requests submitted during a loop turn are batched and
// sent with one io_submit (libaio) or io_uring_enter in Poller::Flush();
// completions are read from the kernel's completion ring in user space (no
// syscall; io_getevents if the AIO ring layout is unknown) in Poll(). A
// sleeping loop is woken by the ring's descriptor (io_uring) or by an eventfd
// signalled per completion (io_set_eventfd, libaio). On a SimEngine it would
// make no sense: the disk does not follow a virtual clock.
//
// Alignment: offsets and lengths must be multiples of BlockSize() (checked by
// BlockDevice::Submit), and so must the buffer's address: a misaligned buffer
// completes with Status::kInvalid (EINVAL) and is not bounced through a copy,
// so a hot path never pays a hidden memcpy. The rule holds in buffered mode
// too, so code that works there also works with O_DIRECT. AlignedBuffer
// provides suitable memory.
//
// Logical block size: BLKSSZGET for a block device; 4096 for a regular file
// (safe for O_DIRECT on any filesystem whose device has <= 4k sectors, and on
// tmpfs). Size: BLKGETSIZE64, or st_size rounded down to the block size
// (a tail shorter than a block is unreachable).
//
// Queue depth: at most `queue_depth` requests are in the kernel at once; more
// wait in a FIFO and are submitted, in order, as earlier ones complete.
// Requests in flight together are not ordered against each other (as in the
// kernel's block layer): to order two writes, wait for the first completion.
//
// Operations:
//   read/write  PREAD/PWRITE; a FUA write carries RWF_DSYNC (Linux >= 4.13).
//               If the kernel refuses it, the device switches to write +
//               fdatasync for FUA writes.
//   flush       fdatasync of the file, run by the kernel's workers so the
//               loop keeps going (IORING_OP_FSYNC; IOCB_CMD_FDSYNC, generic
//               since Linux 4.18). It covers every write that completed before
//               the flush was submitted (the block-layer meaning of a flush).
//               If libaio refuses it, the device falls back to fdatasync()
//               run synchronously on the engine thread (the loop stalls).
//   discard     fallocate(PUNCH_HOLE | KEEP_SIZE) on files, asynchronous with
//               io_uring (IORING_OP_FALLOCATE), synchronous on the engine
//               thread with libaio (it has no such command); BLKDISCARD on
//               block devices, synchronous with either engine (a metadata
//               operation). kNotSupported if refused. On a file a discarded
//               range reads back as zeros.
// A read-only device completes writes and discards with kInvalid.
//
// Allocation (QueryAllocation): on a regular file, lseek SEEK_DATA and
// SEEK_HOLE, run synchronously (metadata only; two calls per extent, at most
// max_extents extents per query). Holes are the file's own: a range never
// written, or punched by a discard. A filesystem without hole tracking
// reports all data (the kernel's generic lseek), and so does a block device.
//
// Memory filesystems: a regular file on tmpfs or ramfs (e.g. /dev/shm) is
// mapped (MAP_SHARED) when `map_memory_files` is set, and its reads and
// writes become copies to and from the mapping, done in Poll() on the next
// loop turn (never inside Submit). Such a file's data lives only in the page
// cache either way, so this is exactly as durable as write(2) (a copy that
// completed survives the process being killed; nothing survives a reboot),
// and a FUA write needs nothing more. It saves the io_submit, the per-page
// lookups and the aio bookkeeping; the copy itself remains. A writable tmpfs
// file is mapped only after all of it is allocated (fallocate), since a store
// into a hole tmpfs cannot back is a SIGBUS where pwrite would return ENOSPC;
// if the allocation fails, libaio serves the file. For the same reason a
// discard zeroes the range in place instead of punching a hole. Flushes take
// the usual path. Another process shrinking the file under a
// mapped device makes it die of SIGBUS: tierlab processes keep off a file a
// device holds (the lock below), other programs are not guarded against.
//
// Inline completion (libaio): on tmpfs and in buffered mode, reads and writes complete
// inside io_submit (the kernel copies through the page cache synchronously).
// Each turn the device sees whether everything it submitted had completed by
// the time it reaped; while that holds, it submits reads and writes without
// the eventfd, which saves a signal per request and an empty epoll wake-up
// per turn. If such a request is still in the kernel when reaped, the device
// goes back to the eventfd and signals it itself each turn until those
// requests are reaped (a short busy poll, once per switch). Flushes always
// carry the eventfd (the kernel runs them in a worker).
//
// Errors: a negative res from the kernel is converted with FromErrno at the
// completion; a short transfer is kIoError. Nothing throws on the I/O path.
//
// Exclusive use: Open locks the whole file (FileLock.h: an OFD lock,
// exclusive, shared for a read-only device) before it reads or changes
// anything, and holds it until the device is destroyed. A file another
// device (in this process or another) holds is refused, so two servers, a
// server and a benchmark, or a layout naming one file twice never write the
// same file. `check_head` then sees the device's first bytes before anything
// is written, which is how the layers above keep a plain layout off a
// volume's devices (StackBuilder.h).
//
// Ownership and threading: owns its descriptor and kernel queue. Engine thread
// only. Destroy it with nothing in flight: the destructor waits for requests
// already in the kernel (io_destroy does) but their callbacks never run, and
// queued requests are dropped.

#include <libaio.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tiering/core/BlockDevice.h"
#include "tiering/core/Expected.h"
#include "tiering/core/RealEngine.h"
#include "tiering/devices/UringQueue.h"

namespace tierlab {

// The kernel interface a FileDevice drives (see above).
enum class FileEngine : std::uint8_t { kAuto, kIoUring, kLibaio };
// "auto", "io_uring", "libaio".
const char* ToString(FileEngine e);

inline constexpr std::uint32_t kDefaultSubmitBatch = 8;

struct FileDeviceOptions {
  std::string path;
  // Create the file if it does not exist (regular files only); with `size`
  // > 0, a file shorter than `size` is extended to it with ftruncate (sparse;
  // existing data is kept, a longer file is never shortened).
  bool create = false;
  std::uint64_t size = 0;
  // Refuse a device shorter than this (exit 1): an existing volume's device
  // is never grown back, a short one is an error (`tierlab check`).
  std::uint64_t min_size = 0;
  // Called once the device is open and locked, before it is extended or
  // written, with its first bytes (4 KiB or one logical block, fewer for a
  // shorter file, none for an empty one): an error refuses the open.
  using HeadCheck = std::function<Expected<void>(const std::byte* head, std::size_t n)>;
  HeadCheck check_head;
  // O_DIRECT. If the filesystem refuses it (EINVAL at open), the device falls
  // back to buffered I/O, prints one warning line on stderr and reports
  // buffered() == true.
  bool direct = true;
  // Requests in the kernel at once: 1..4096.
  std::uint32_t queue_depth = 32;
  // Requests sent per submission at most (fio's iodepth_batch_submit); more
  // prepared in one loop turn go out in several calls. 0: all of a turn's
  // requests in one call. Unset: 0 where the kernel completes reads and
  // writes inside the call (buffered I/O, memory filesystems), so batching
  // only saves syscalls; otherwise kDefaultSubmitBatch, because a device
  // that is handed a whole queue at once tends to complete it at once, and
  // the queue then moves in lockstep, idle between batches (measured on a
  // virtio disk: docs/PERFORMANCE.md, "Real I/O path").
  std::optional<std::uint32_t> submit_batch;
  bool read_only = false;
  // How long a locked file is retried before it is "in use" (FileLock.h):
  // long enough for a killed process's io_uring requests to finish (5-14 ms
  // measured on a virtio disk at QD32; slower devices take longer), short
  // enough that a file really in use is reported promptly.
  std::uint32_t lock_wait_ms = 2000;
  // Map regular files on tmpfs/ramfs instead of using the kernel queue for
  // their reads and writes (see above).
  bool map_memory_files = true;
  FileEngine engine = FileEngine::kAuto;
};

class FileDevice final : public BlockDevice, private Poller {
 public:
  // Opens the file or block device and registers with `engine` (which must
  // outlive the device). Errors name the path: a missing file, a path that is
  // neither a regular file nor a block device (exit 2), a file locked by
  // another user (exit 1), a device shorter than `min_size` (exit 1) or
  // smaller than one block (a zero-length file is refused here rather than
  // failing every I/O), what `check_head` refuses, a bad queue depth, an
  // io_uring asked for by name that the kernel refuses, or an AIO context the
  // kernel refuses (aio-max-nr).
  static Expected<std::unique_ptr<FileDevice>> Open(RealEngine& engine, std::string name,
                                                    const FileDeviceOptions& options);
  ~FileDevice() override;

  std::uint64_t Size() const override { return size_; }
  std::uint32_t BlockSize() const override { return block_size_; }
  bool RequiresData() const override { return true; }
  std::string Kind() const override { return "file"; }

  const std::string& path() const { return path_; }
  bool is_block_device() const { return is_block_device_; }
  // True if O_DIRECT was refused and the page cache is in the path.
  bool buffered() const { return buffered_; }
  bool read_only() const { return read_only_; }
  std::uint32_t queue_depth() const { return static_cast<std::uint32_t>(slots_.size()); }
  // Requests waiting for a free queue slot.
  std::size_t waiting() const { return waiting_.size(); }
  // The engine in use: kIoUring or kLibaio, never kAuto.
  FileEngine engine() const {
    return uring_ != nullptr ? FileEngine::kIoUring : FileEngine::kLibaio;
  }
  // io_submit or io_uring_enter calls so far (each carries a batch).
  std::uint64_t submit_calls() const { return submit_calls_; }
  // True while reads and writes go out without the eventfd (see above).
  bool completes_inline() const { return inline_; }
  // Requests per submission at most; 0 = a whole turn's (see the options).
  std::uint32_t submit_batch() const { return submit_batch_; }
  // True if the file is on a memory filesystem and mapped (see above).
  bool mapped() const { return map_ != nullptr; }

 protected:
  void SubmitImpl(const IoRequest& req, IoCallback done) override;
  void AllocationImpl(std::uint64_t offset, std::uint64_t length, std::size_t max_extents,
                      AllocationMap& out) const override;

 private:
  enum class SlotKind : std::uint8_t { kRw, kFsync, kWriteThenSync, kDiscard };
  struct Slot {
    iocb cb;
    IoRequest req;  // io_uring: kept to resubmit a FUA write without RWF_DSYNC
    IoCallback done;
    std::uint64_t expect = 0;  // bytes a read/write must transfer
    SlotKind kind = SlotKind::kRw;
    bool blind = false;  // submitted without the eventfd
  };
  struct Waiting {
    IoRequest req;
    IoCallback done;
  };
  struct Rejected {
    Slot* slot;
    Status status;
  };

  FileDevice(RealEngine& engine, std::string name);

  // Poller.
  void Flush() override;
  int Poll() override;
  bool Busy() const override;
  int WakeFd() const override { return uring_ != nullptr ? uring_->RingFd() : eventfd_; }

  // Fills a free slot for `req` and appends it to the submission batch.
  void Start(const IoRequest& req, IoCallback done);
  // io_uring: prepares `s` (its req and kind) in the submission ring.
  void PrepUring(Slot* s);
  void FlushUring();
  void PrepSync(Slot* s);
  // Handles one completion event; returns after running the callback.
  void Complete(Slot* s, long res);
  void Release(Slot* s, Status status);
  // Runs a synchronous discard or fdatasync and completes on the next turn.
  Status DiscardNow(const IoRequest& req);
  // Copies the queued reads and writes of a mapped file and completes them.
  int RunMapped();

  std::string path_;
  int fd_ = -1;
  int eventfd_ = -1;
  io_context_t ctx_ = nullptr;
  std::unique_ptr<UringQueue> uring_;  // set: io_uring serves the file, not ctx_
  std::vector<Slot*> prepared_;        // io_uring: in the submission ring, in order
  std::vector<UringQueue::Completion> completions_;
  bool uring_failed_ = false;  // io_uring_enter failed for good: new requests fail
  std::uint64_t size_ = 0;
  std::uint32_t block_size_ = 4096;
  bool is_block_device_ = false;
  bool buffered_ = false;
  bool read_only_ = false;
  bool aio_fsync_ok_ = true;  // IOCB_CMD_FDSYNC accepted so far
  bool dsync_ok_ = true;      // RWF_DSYNC accepted so far

  std::vector<Slot> slots_;  // fixed after Open: iocb addresses stay valid
  std::vector<Slot*> free_;
  std::vector<iocb*> batch_;  // prepared, not yet io_submit'ted
  std::deque<Waiting> waiting_;
  std::byte* map_ = nullptr;            // the whole file, if mapped
  std::vector<Waiting> mapped_;         // reads/writes queued for the next Poll
  std::vector<Waiting> mapped_run_;     // those being completed now
  std::vector<Rejected> rejected_;      // refused by the kernel queue, delivered in Poll
  std::vector<Rejected> rejected_run_;  // those being delivered now
  std::vector<io_event> events_;
  std::uint32_t in_kernel_ = 0;
  std::uint32_t blind_in_kernel_ = 0;  // of in_kernel_, those without the eventfd
  std::uint32_t syncs_in_kernel_ = 0;  // of in_kernel_, the flushes
  bool inline_ = false;                // submit reads and writes without the eventfd
  bool submitted_ = false;             // io_submit sent something since the last Poll
  std::uint32_t submit_batch_ = 0;
  std::uint64_t submit_calls_ = 0;
  RealEngine* real_engine_ = nullptr;
};

}  // namespace tierlab
