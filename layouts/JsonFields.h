#pragma once
// Typed field access on JSON objects with errors that name the field path:
// "x.json: tiers[1].count: must be >= 1, got 0". Every schema in layouts/
// (layout, cache, tiering, block cache, matrix) reads its fields through here.

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "tiering/core/Expected.h"

namespace tierlab {

class JsonFields {
 public:
  // `prefix` is "file: path" ("x.json: cache"); empty path allowed.
  JsonFields(const nlohmann::json& obj, std::string source, std::string path);

  bool ok() const { return error_.empty(); }
  // The first error, or an empty message.
  Error error() const { return MakeError(error_); }
  bool Has(std::string_view key) const;

  // Each getter returns `def` when the key is absent; records the first error.
  std::string String(std::string_view key, std::string def);
  bool Bool(std::string_view key, bool def);
  // Also accepts "on"/"off" strings for switches such as cache.read.
  bool Switch(std::string_view key, bool def);
  std::int64_t Int(std::string_view key, std::int64_t def, std::int64_t min, std::int64_t max);
  double Number(std::string_view key, double def, double min, double max);
  // A byte count: a number, or a string with a binary suffix ("64k", "8g").
  std::uint64_t Bytes(std::string_view key, std::uint64_t def);
  // One of `choices`; the error lists them.
  std::string Choice(std::string_view key, std::string def,
                     const std::vector<std::string>& choices);
  std::vector<std::string> Strings(std::string_view key);
  // Unknown keys are errors that list the known ones.
  void OnlyKeys(std::initializer_list<std::string_view> known);
  void OnlyKeys(const std::vector<std::string_view>& known);

  // The value at `key`, or nullptr when absent or null (for sections a
  // table row reads itself, such as arrays of objects).
  const nlohmann::json* Raw(std::string_view key) { return Get(key); }
  // Fields of a nested object at `key_path` below this one ("pins[0]").
  JsonFields Child(const nlohmann::json& obj, const std::string& key_path) const;
  // Takes the first error of a child, if this one has none yet.
  void Adopt(const JsonFields& child);
  // Takes an error whose message already names the file and field.
  void Adopt(const Error& e);

  // "file: path.key" for messages made by the caller.
  std::string Where(std::string_view key) const;
  void Fail(std::string_view key, const std::string& what);

 private:
  const nlohmann::json* Get(std::string_view key);

  const nlohmann::json& obj_;
  std::string source_;
  std::string path_;
  std::string error_;
};

// "a, b, c"
std::string JoinNames(const std::vector<std::string>& names);
// Parses "64k", "8g", "1t", "4096" (binary suffixes, case-insensitive).
Expected<std::uint64_t> ParseBytesText(std::string_view text);
// "64k", "8g", or plain digits when no suffix is exact.
std::string FormatBytes(std::uint64_t bytes);

}  // namespace tierlab
