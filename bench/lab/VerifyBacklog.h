#pragma once
// fio's verify_backlog (io_u.c check_get_verify; HOWTO verify_backlog,
// verify_backlog_batch): a writing job with verify reads back what it
// wrote while it writes, rather than all of it after its writes.
//
// Before each I/O the job asks whether it is a read-back's turn. A batch of
// read-backs begins when the writes waiting to be read back are a multiple
// of verify_backlog (and some are waiting) and the job's last I/O was not a
// read; the batch lasts verify_backlog_batch read-backs (default: the
// backlog). A read-back takes the oldest waiting write (with fio's random
// map) or the one with the lowest offset (WrittenExtents), once that write
// has completed; until then the job goes on writing and
// the batch waits. What is left when the writes end is read back in the
// job's verify phase, as without a backlog.
//
// Not thread-safe.

#include <cstddef>
#include <cstdint>

namespace tierlab {

class VerifyBacklog {
 public:
  VerifyBacklog(std::uint32_t backlog, std::uint32_t batch)
      : backlog_(backlog), batch_(batch != 0 ? batch : backlog) {}

  // Whether the next I/O should be a read-back: `waiting` writes are not
  // yet read back; the job's last I/O was a read or not.
  bool Wants(std::size_t waiting, bool last_was_read);
  // A read-back was issued (one of the batch).
  void Took() { --left_; }

 private:
  std::uint32_t backlog_;
  std::uint32_t batch_;
  std::uint32_t left_ = 0;  // read-backs still owed in the current batch
};

}  // namespace tierlab
