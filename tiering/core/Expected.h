#pragma once
// Expected-style results for parsers and configuration: a value or an Error
// that says what is wrong and where. Exceptions are kept to the CLI edge.

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace tierlab {

// Process exit codes (README.md, "Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitCheckFailed = 1,  // a regression or a consistency check failed
  kExitUsage = 2,        // usage or input error
  kExitIo = 3,           // runtime I/O error
};

struct Error {
  // One line, naming the file and the field path or line where known:
  // "job.json: rwmixread: must be 0..100, got 150".
  std::string message;
  int exit_code = kExitUsage;
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

inline Error MakeError(std::string message, int exit_code = kExitUsage) {
  return Error{std::move(message), exit_code};
}

}  // namespace tierlab
