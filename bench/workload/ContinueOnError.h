#pragma once
// fio's continue_on_error and ignore_error: which errors a job goes on
// after, and which end it (fio's td_error.c, options.c; HOWTO "Error
// handling").
//
// An error has a type: a verify mismatch (EILSEQ) is a verify error, any
// other error of a read is a read error, and of anything else (write, trim,
// flush) a write error. A job continues after an error when its type is in
// `continue_on_error` and the error is in the type's list: ignore_error's,
// or fio's default, EIO and EILSEQ ("non-fatal" errors). Any other error
// ends the job. fio's default, continue_on_error=none, ends a job at its
// first error.
//
// Grammar, as fio:
//   continue_on_error  none | read | write | io | verify | all | 0 | 1
//   ignore_error       READ_LIST[,WRITE_LIST[,VERIFY_LIST]], each list
//                      errors separated by ':', by name (fio's table:
//                      EPERM .. ERANGE) or number ("EAGAIN,ENOSPC:122").
//                      A non-empty list replaces the type's default list and
//                      makes the job continue after that type's errors, as
//                      fio's does; an empty one leaves the type alone.
// A later continue_on_error sets every type again (fio stores one mask), so
// the list of a type it leaves out has no effect and is dropped.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tiering/core/Expected.h"
#include "tiering/core/IoRequest.h"

namespace tierlab {

enum class ErrorType : std::uint8_t { kRead, kWrite, kVerify };
inline constexpr int kErrorTypes = 3;

struct ContinueOnError {
  std::uint8_t types = 0;                // bit (1 << ErrorType) per type continued
  std::vector<int> ignore[kErrorTypes];  // errno lists; empty: EIO and EILSEQ

  bool operator==(const ContinueOnError&) const = default;
  bool any() const { return types != 0; }
  // Whether a job goes on after error `err` (a positive errno) of `type`.
  bool Continues(ErrorType type, int err) const;
};

// fio's td_error_type: EILSEQ is a verify error, else by the I/O's direction.
ErrorType ErrorTypeOf(IoOp op, int err);

// The option values (errors: the reason only).
Expected<void> ParseContinueOnError(std::string_view text, ContinueOnError& c);
Expected<void> ParseIgnoreError(std::string_view text, ContinueOnError& c);
// Texts that parse back to the same value, continue_on_error first; ""
// for ignore_error without lists.
std::string ContinueOnErrorText(const ContinueOnError& c);
std::string IgnoreErrorText(const ContinueOnError& c);

// fio's name of an errno in its ignore_error table ("ENOSPC"), else the number.
std::string ErrnoName(int err);

}  // namespace tierlab
