#include "layouts/JsonFields.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "layouts/JsonParse.h"
#include "policies/ByteSize.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {

JsonFields::JsonFields(const nlohmann::json& obj, std::string source, std::string path)
    : obj_(obj), source_(std::move(source)), path_(std::move(path)) {
  if (!obj_.is_object()) {
    error_ = source_ + ": " + (path_.empty() ? std::string("top level") : path_) +
             ": must be a JSON object";
  }
}

std::string JsonFields::Where(std::string_view key) const {
  std::string w = source_ + ": ";
  if (!path_.empty()) w += path_ + (key.empty() ? "" : ".");
  w += key;
  return w;
}

void JsonFields::Fail(std::string_view key, const std::string& what) {
  if (error_.empty()) error_ = Where(key) + ": " + what;
}

JsonFields JsonFields::Child(const nlohmann::json& obj, const std::string& key_path) const {
  return JsonFields(obj, source_, path_.empty() ? key_path : path_ + "." + key_path);
}

void JsonFields::Adopt(const JsonFields& child) {
  if (error_.empty()) error_ = child.error_;
}

void JsonFields::Adopt(const Error& e) {
  if (error_.empty()) error_ = e.message;
}

bool JsonFields::Has(std::string_view key) const {
  return obj_.is_object() && obj_.contains(std::string(key)) &&
         !obj_.at(std::string(key)).is_null();
}

const nlohmann::json* JsonFields::Get(std::string_view key) {
  if (!obj_.is_object()) return nullptr;
  auto it = obj_.find(std::string(key));
  if (it == obj_.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string JsonFields::String(std::string_view key, std::string def) {
  const auto* v = Get(key);
  if (v == nullptr) return def;
  if (!v->is_string()) {
    Fail(key, "must be a string, got " + DescribeJson(*v));
    return def;
  }
  return v->get<std::string>();
}

bool JsonFields::Bool(std::string_view key, bool def) {
  const auto* v = Get(key);
  if (v == nullptr) return def;
  if (!v->is_boolean()) {
    Fail(key, "must be true or false, got " + DescribeJson(*v));
    return def;
  }
  return v->get<bool>();
}

bool JsonFields::Switch(std::string_view key, bool def) {
  const auto* v = Get(key);
  if (v == nullptr) return def;
  if (v->is_boolean()) return v->get<bool>();
  if (v->is_string()) {
    const std::string s = v->get<std::string>();
    if (s == "on") return true;
    if (s == "off") return false;
  }
  Fail(key, "must be true/false or \"on\"/\"off\", got " + DescribeJson(*v));
  return def;
}

std::int64_t JsonFields::Int(std::string_view key, std::int64_t def, std::int64_t min,
                             std::int64_t max) {
  const auto* v = Get(key);
  if (v == nullptr) return def;
  if (!v->is_number_integer()) {
    Fail(key, "must be an integer, got " + DescribeJson(*v));
    return def;
  }
  // An unsigned value above INT64_MAX would read back as negative.
  const bool too_big = v->is_number_unsigned() &&
                       v->get<std::uint64_t>() >
                           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  const auto x = too_big ? std::int64_t{0} : v->get<std::int64_t>();
  if (too_big || x < min || x > max) {
    std::ostringstream s;
    s << "must be " << min << ".." << max << ", got ";
    if (too_big) {
      s << v->get<std::uint64_t>();
    } else {
      s << x;
    }
    Fail(key, s.str());
    return def;
  }
  return x;
}

double JsonFields::Number(std::string_view key, double def, double min, double max) {
  const auto* v = Get(key);
  if (v == nullptr) return def;
  if (!v->is_number()) {
    Fail(key, "must be a number, got " + DescribeJson(*v));
    return def;
  }
  const double x = v->get<double>();
  if (!(x >= min && x <= max)) {
    std::ostringstream s;
    s << "must be " << min << ".." << max << ", got " << x;
    Fail(key, s.str());
    return def;
  }
  return x;
}

std::uint64_t JsonFields::Bytes(std::string_view key, std::uint64_t def) {
  const auto* v = Get(key);
  if (v == nullptr) return def;
  if (v->is_number_unsigned()) return v->get<std::uint64_t>();
  if (v->is_string()) {
    auto b = ParseBytesText(v->get<std::string>());
    if (b.ok()) return *b;
  }
  Fail(key, "must be a byte count such as 4096, \"64k\" or \"8g\", got " + DescribeJson(*v));
  return def;
}

std::string JsonFields::Choice(std::string_view key, std::string def,
                               const std::vector<std::string>& choices) {
  const auto* v = Get(key);
  if (v == nullptr) return def;
  if (v->is_string()) {
    std::string s = v->get<std::string>();
    if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
    Fail(key, "unknown " + QuotedText(s, '"') + "; known: " + JoinNames(choices));
    return def;
  }
  Fail(key, "must be one of " + JoinNames(choices) + ", got " + DescribeJson(*v));
  return def;
}

std::vector<std::string> JsonFields::Strings(std::string_view key) {
  const auto* v = Get(key);
  std::vector<std::string> out;
  if (v == nullptr) return out;
  if (!v->is_array()) {
    Fail(key, "must be an array of strings");
    return out;
  }
  for (const auto& e : *v) {
    if (!e.is_string()) {
      Fail(key, "must be an array of strings, got " + DescribeJson(e));
      return {};
    }
    out.push_back(e.get<std::string>());
  }
  return out;
}

void JsonFields::OnlyKeys(std::initializer_list<std::string_view> known) {
  OnlyKeys(std::vector<std::string_view>(known));
}

void JsonFields::OnlyKeys(const std::vector<std::string_view>& known) {
  if (!obj_.is_object()) return;
  for (const auto& [k, v] : obj_.items()) {
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      std::vector<std::string> names(known.begin(), known.end());
      Fail(k, "unknown key; known: " + JoinNames(names));
      return;
    }
  }
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

Expected<std::uint64_t> ParseBytesText(std::string_view text) {
  auto b = ParseByteSize(text);
  if (!b)
    return MakeError("expected a byte count such as 4096, 64k or 8g, got " + QuotedText(text, '"'));
  return *b;
}

std::string FormatBytes(std::uint64_t bytes) {
  static constexpr const char* kSuffix[] = {"", "k", "m", "g", "t"};
  int i = 0;
  while (i < 4 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++i;
  }
  return std::to_string(bytes) + kSuffix[i];
}

}  // namespace tierlab
