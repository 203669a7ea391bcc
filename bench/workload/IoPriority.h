#pragma once
// fio's I/O priorities: a job's own (prio, prioclass) and the per-I/O ones
// of its libaio/io_uring cmdprio options (cmdprio_percentage, cmdprio_class,
// cmdprio, cmdprio_bssplit; fio's engines/cmdprio.c, HOWTO). tierlab
// carries each I/O's priority to where fio reports it (logs with log_prio,
// the per-priority latencies in the JSON); its devices do not schedule by
// priority.
//
// A priority is fio's value: class << 13 | hint << 3 | level (class 1 RT,
// 2 BE, 3 IDLE; a class of 0 with a level is BE, as fio's ioprio_value).
// A job without prio or prioclass has priority 0.
//
// Per I/O, reads and writes apart (trims never get one): with
// cmdprio_percentage P, an I/O gets (cmdprio_class, cmdprio) P % of the
// time, drawn in 0..99; with cmdprio_bssplit, an I/O of a size the split
// names gets the priority of the entry its draw falls in (entries of a size
// in their order, each its %), the job's own otherwise. cmdprio_class
// defaults to RT. The two are exclusive, as in fio.
//
// Grammar, as fio:
//   prio 0..7, prioclass 0..3
//   cmdprio_percentage, cmdprio_class (1..3), cmdprio (0..7): "R[,W]"
//   cmdprio_bssplit: "R[,W[,T]]" (T ignored), each BS/PCT[/CLASS/LEVEL[/HINT]]
//                    entries separated by ':' (BS/PCT: cmdprio_class and
//                    cmdprio; PCT 0: left out)

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tiering/core/Expected.h"

namespace tierlab {

inline constexpr std::uint32_t kIoprioClassRt = 1;
inline constexpr std::uint32_t kIoprioClassBe = 2;

// fio's ioprio_value.
std::uint32_t IoprioValue(std::uint32_t klass, std::uint32_t level, std::uint32_t hint = 0);
inline bool IoprioIsRt(std::uint32_t ioprio) {
  return (ioprio >> 13) == kIoprioClassRt;
}

struct CmdPrioEntry {
  std::uint64_t bs = 0;
  std::uint32_t percent = 0;
  std::int64_t ioprio = -1;  // -1: cmdprio_class and cmdprio
  bool operator==(const CmdPrioEntry&) const = default;
};

struct IoPriorities {
  std::int32_t prio = -1;       // unset: -1
  std::int32_t prioclass = -1;  // unset: -1
  // Per direction, reads [0] and writes [1].
  std::uint32_t cmdprio_percentage[2] = {0, 0};
  std::uint32_t cmdprio_class[2] = {0, 0};  // 0: RT
  std::uint32_t cmdprio[2] = {0, 0};
  std::vector<CmdPrioEntry> cmdprio_bssplit[2];  // by size, stable
  bool cmdprio_bssplit_given = false;            // even if every entry was 0 %
  bool log_prio = false;

  bool operator==(const IoPriorities&) const = default;
  // The job's own priority (0 without prio and prioclass).
  std::uint32_t job() const;
  bool per_io() const;
  // Every priority an I/O of that direction (0 reads, 1 writes) can get:
  // the job's first, then cmdprio's in their order, each once (fio's order
  // of its per-priority latencies).
  std::vector<std::uint32_t> Values(int dir) const;
  // The priority of an I/O of `length` bytes in `dir`, for a draw 0..99.
  std::uint32_t Pick(int dir, std::uint64_t length, std::uint32_t draw) const;
};

// cmdprio_bssplit's value (sizes with kb_base). Errors: the reason.
Expected<void> ParseCmdPrioBssplit(std::string_view text, int kb_base, IoPriorities& p);
// A cmdprio_bssplit value that parses back to the same entries.
std::string CmdPrioBssplitText(const IoPriorities& p);
// Checks that need several options (fio's cmdprio init). "option: reason".
Expected<void> ValidateIoPriorities(const IoPriorities& p);

}  // namespace tierlab
