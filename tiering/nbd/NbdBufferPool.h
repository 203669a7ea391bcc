#pragma once
// The NBD server's buffer memory: aligned buffers for read replies, write
// payloads and block-status replies, recycled by power-of-two size class,
// under one byte budget shared by every connection of a server.
//
// Budget: the buffers handed out plus those kept for reuse never exceed
// `limit` bytes. Acquire returns null instead of going over; the caller's
// Waiter is queued and called back (from an engine task, never inside
// Acquire or Release) when Release has made room for it. Waiters are served
// in arrival order, and while one waits nobody else acquires, so a large
// request is not starved by a stream of small ones. Kept buffers are freed
// when a new buffer needs their room, and all of them by Trim().
//
// Memory goes back to the kernel: buffers of kMapFrom bytes and more are
// mapped (mmap) and unmapped when freed, so a burst of large requests leaves
// nothing behind (malloc would keep such memory in its heap, and did: 1.6 GB
// after 60 clients with 32 MiB reads left). Smaller ones come from
// aligned_alloc; Trim() also returns malloc's free pages (malloc_trim).
//
// Alignment: 4096 bytes (O_DIRECT devices need it). Out of address space, an
// allocation aborts, as operator new would.
//
// Threading: the engine thread. Lifetime: shared (std::shared_ptr) by the
// server, its connections and the requests that outlive their connection;
// the engine must outlive it. A Waiter must CancelWait before it goes away.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "tiering/core/Engine.h"

namespace tierlab {

class NbdBufferPool {
 public:
  static constexpr std::size_t kAlignment = 4096;
  static constexpr std::size_t kMapFrom = 256u << 10;

  class Waiter {
   public:
    // Room for the buffer this waiter asked for: it should Acquire now (it
    // keeps its place until it does, or is dropped from the queue if it
    // does not).
    virtual void OnBufferAvailable() = 0;

   protected:
    ~Waiter() = default;

   private:
    friend class NbdBufferPool;
    Waiter* next_ = nullptr;
    std::size_t need_ = 0;
    bool queued_ = false;
  };

  NbdBufferPool(Engine& engine, std::size_t limit);
  NbdBufferPool(const NbdBufferPool&) = delete;
  NbdBufferPool& operator=(const NbdBufferPool&) = delete;
  ~NbdBufferPool();

  // The size class (capacity) a buffer of `size` bytes gets.
  static std::size_t CapacityFor(std::size_t size);

  // A buffer of at least `size` bytes (contents undefined), its capacity in
  // `*capacity` (pass it back to Release); or null if the budget has no room
  // now, or others wait before `waiter`. Then `waiter` (unless null) is
  // queued. A size whose class exceeds the limit never fits: callers keep
  // requests to CapacityFor(size) <= limit().
  std::byte* Acquire(std::size_t size, std::size_t* capacity, Waiter* waiter);
  void Release(std::byte* p, std::size_t capacity);
  // Leaves the queue (no-op if not queued).
  void CancelWait(Waiter* waiter);
  // Frees every kept buffer and malloc's free pages.
  void Trim();
  // Whether released buffers are kept for reuse (the default). Off (the
  // server has no connection left): Trim now, and free what comes back
  // later (requests that outlived their connection).
  void SetKeep(bool keep);

  std::size_t limit() const { return limit_; }
  // Bytes handed out now / kept for reuse / the most ever handed out.
  std::size_t in_use() const { return in_use_; }
  std::size_t kept() const { return kept_; }
  std::size_t peak_in_use() const { return peak_in_use_; }
  bool has_waiters() const { return head_ != nullptr; }

 private:
  static constexpr int kClasses = 31;  // 4 KiB .. 1 GiB (2^30)
  // Of the budget, at most this many bytes are kept for reuse.
  static constexpr std::size_t kMaxKeptBytes = 64u << 20;

  static std::byte* Allocate(std::size_t capacity);
  static void Free(std::byte* p, std::size_t capacity);
  // Frees kept buffers, largest first, until `room` bytes fit under the limit.
  void MakeRoom(std::size_t room);
  void Dequeue(Waiter* w);
  void ScheduleWake();
  void Wake();

  Engine& engine_;
  std::size_t limit_;
  std::vector<std::byte*> kept_by_class_[kClasses];
  std::size_t in_use_ = 0;
  std::size_t kept_ = 0;
  std::size_t peak_in_use_ = 0;
  Waiter* head_ = nullptr;
  Waiter* tail_ = nullptr;
  bool keep_ = true;
  bool wake_scheduled_ = false;
  TimerId wake_timer_ = 0;
};

}  // namespace tierlab
