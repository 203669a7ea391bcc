#pragma once
// Expected-style results for parsers and configuration: a value or an Error
// that says what is wrong and where. Exceptions are kept to the CLI edge.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace tierlab {

// What went wrong, named after the failure, not after what a program does
// about it: the CLI chooses its exit code from the kind (cli/ExitCode.h),
// and a caller may act on it (a busy lock is reported with its holder).
enum class ErrorKind : std::uint8_t {
  // The user's input is wrong: usage, an option, a configuration or input
  // file, a path that names nothing usable. Changing what was given fixes it.
  kInput,
  // A device, file or volume is held by another user, or belongs to another
  // volume.
  kInUse,
  // What was checked does not hold: damaged or inconsistent metadata, data
  // failing its checksums, a device shorter than recorded, a volume
  // directory that is a copy of another.
  kInconsistent,
  // An operation on a file, device or socket failed while running.
  kIo,
};

struct Error {
  // One line, naming the file and the field path or line where known:
  // "job.json: rwmixread: must be 0..100, got 150".
  std::string message;
  ErrorKind kind = ErrorKind::kInput;
};

template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Expected<void>: success or an Error.
template <>
class [[nodiscard]] Expected<void> {
 public:
  Expected() = default;
  Expected(Error error) : e_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return !e_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *e_; }

 private:
  std::optional<Error> e_;
};

inline Error MakeError(std::string message, ErrorKind kind = ErrorKind::kInput) {
  return Error{std::move(message), kind};
}

}  // namespace tierlab
