#include "layouts/JsonParse.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

namespace tierlab {
namespace {

using Json = nlohmann::json;

// A string as a JSON literal, cut to at most `max_bytes` of its content
// (invalid UTF-8 from the cut replaced, never thrown).
std::string Quoted(const std::string& s, std::size_t max_bytes) {
  const Json j = s.size() > max_bytes ? Json(s.substr(0, max_bytes)) : Json(s);
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Appends a compact rendering of `v` until `out` reaches `limit` bytes.
// Recursion ends there too: each level adds at least one byte.
void AppendPrefix(const Json& v, std::string& out, std::size_t limit) {
  if (out.size() >= limit) return;
  if (v.is_object() || v.is_array()) {
    const bool obj = v.is_object();
    out += obj ? '{' : '[';
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (out.size() >= limit) return;
      if (!first) out += ", ";
      first = false;
      if (obj) {
        out += Quoted(it.key(), limit - std::min(limit, out.size()));
        out += ": ";
      }
      AppendPrefix(*it, out, limit);
    }
    out += obj ? '}' : ']';
    return;
  }
  if (v.is_string()) {
    out += Quoted(v.get_ref<const std::string&>(), limit - std::min(limit, out.size()) + 1);
    return;
  }
  out += v.dump(-1, ' ', false, Json::error_handler_t::replace);  // short scalars
}

// "cache", "tiers[1]", axes."cache.read": how a path segment is written.
bool PlainKey(const std::string& k) {
  if (k.empty() || k.size() > 64) return false;
  for (unsigned char c : k) {
    if (!std::isalnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

// Builds the DOM through nlohmann's SAX interface, so that depth and
// duplicate keys are checked as the document is read (the DOM parser has
// no hook that can stop on either with a message).
class BoundedDomBuilder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit BoundedDomBuilder(std::string source) : source_(std::move(source)) {}

  bool null() { return Put(nullptr); }
  bool boolean(bool v) { return Put(v); }
  bool number_integer(number_integer_t v) { return Put(v); }
  bool number_unsigned(number_unsigned_t v) { return Put(v); }
  bool number_float(number_float_t v, const string_t&) { return Put(v); }
  bool string(string_t& v) { return Put(std::move(v)); }
  bool binary(binary_t& v) { return Put(Json::binary(std::move(v))); }
  bool start_object(std::size_t) { return Open(Json::object()); }
  bool start_array(std::size_t) { return Open(Json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(string_t& k) {
    Frame& f = frames_.back();
    f.key = std::move(k);
    // No tierlab key holds one, and every message that names a field would
    // carry it: a newline would split the message, an escape reach the
    // terminal. FieldPath() shows the key JSON-escaped.
    for (const char c : f.key) {
      if (static_cast<unsigned char>(c) < 0x20) {
        error_ = source_ + ": " + FieldPath() + ": a key holds a control character";
        return false;
      }
    }
    f.duplicate = f.node->contains(f.key);
    if (f.duplicate) first_ = DescribeJson(f.node->at(f.key), 40);
    return true;
  }

  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) {
    // nlohmann's message carries the line and column: "[json.exception.
    // parse_error.101] parse error at line 3, column 5: syntax error ...".
    std::string what = ex.what();
    const std::size_t at = what.find("parse error at ");
    if (at != std::string::npos) what = what.substr(at + std::strlen("parse error "));
    if (what.size() > 200) what = what.substr(0, 200) + "...";
    error_ = source_ + ": invalid JSON " + what;
    return false;
  }

  Json Take() { return std::move(root_); }
  const std::string& error() const { return error_; }

 private:
  struct Frame {
    Json* node;
    std::string key;         // objects: the key whose value comes next
    bool duplicate = false;  // that key was already in the object
  };

  // Where the next value goes.
  Json* Slot() {
    if (frames_.empty()) return &root_;
    Frame& f = frames_.back();
    if (f.node->is_array()) return &f.node->emplace_back();
    // A value of its own: a duplicate inside a duplicate's value must not
    // overwrite the value an open frame points into.
    if (f.duplicate) return &scratch_.emplace_back();
    return &(*f.node)[f.key];
  }

  bool Put(Json v) {
    *Slot() = std::move(v);
    return AfterValue();
  }

  bool Open(Json empty) {
    if (frames_.size() >= kMaxJsonDepth) {
      error_ = source_ + ": " + FieldPath(/*next_element=*/true) + ": nested deeper than " +
               std::to_string(kMaxJsonDepth) + " levels";
      return false;
    }
    Json* slot = Slot();
    *slot = std::move(empty);
    frames_.push_back(Frame{slot, {}, false});
    return true;
  }

  bool Close() {
    frames_.pop_back();
    return AfterValue();
  }

  // A value just ended; the value of a duplicate key is reported here, once
  // both are known.
  bool AfterValue() {
    if (frames_.empty() || !frames_.back().duplicate) return true;
    // The value that just ended: any duplicate inside it ended the parse.
    const std::string second = DescribeJson(scratch_.back(), 40);
    error_ = source_ + ": " + FieldPath() + ": duplicate key: first " + first_ + ", then " + second;
    return false;
  }

  // "tiers[1].count" for the value being read, "" at the top level.
  // `next_element`: the innermost array's element is not added yet.
  std::string FieldPath(bool next_element = false) const {
    std::string p;
    for (std::size_t i = 0; i < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      if (f.node->is_array()) {
        const bool innermost = i + 1 == frames_.size();
        const std::size_t n = f.node->size();
        p += '[' + std::to_string(innermost && next_element ? n : (n == 0 ? 0 : n - 1)) + ']';
      } else {
        if (!p.empty()) p += '.';
        p += PlainKey(f.key) ? f.key : Quoted(f.key, 64);
      }
    }
    if (p.size() > 80) p = p.substr(0, 48) + "..." + p.substr(p.size() - 24);
    return p;
  }

  std::string source_;
  Json root_;
  // The second values of duplicate keys, at most one per open level (a
  // deque: frames point into them as they grow).
  std::deque<Json> scratch_;
  std::string first_;
  std::vector<Frame> frames_;
  std::string error_;
};

}  // namespace

Expected<void> CheckTextBytes(std::string_view text, std::string_view source,
                              std::string_view what) {
  std::size_t bad = 0;
  for (; bad < text.size(); ++bad) {
    const auto c = static_cast<unsigned char>(text[bad]);
    if ((c < 0x20 && (c < '\t' || c > '\r')) || c == 0x7f) break;
  }
  if (bad == text.size()) return {};
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < bad; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[bad]));
  return MakeError(std::string(source) + ":" + std::to_string(line) + ": binary data (byte " +
                   byte + " at column " + std::to_string(col) + "); " + std::string(what) +
                   " is text");
}

Expected<nlohmann::json> ParseJsonText(std::string_view text, std::string_view source) {
  if (auto nul = CheckTextBytes(text, source, "a JSON file"); !nul.ok()) return nul.error();
  BoundedDomBuilder b{std::string(source)};
  const bool ok = Json::sax_parse(text, &b, Json::input_format_t::json, /*strict=*/true,
                                  /*ignore_comments=*/true);
  if (!ok) {
    return MakeError(b.error().empty() ? std::string(source) + ": invalid JSON" : b.error());
  }
  return b.Take();
}

Expected<std::string> ReadTextFile(std::string_view path) {
  const std::string p(path);
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return MakeError(p + ": cannot open: no such file");
    return MakeError(p + ": cannot open: " + std::strerror(err),
                     err == EACCES ? ErrorKind::kInput : ErrorKind::kIo);
  }
  if (S_ISDIR(st.st_mode)) return MakeError(p + ": is a directory, not a file");
  std::ifstream in(p, std::ios::binary);
  if (!in) return MakeError(p + ": cannot open: not readable");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return MakeError(p + ": read error", ErrorKind::kIo);
  return std::move(text).str();
}

Expected<nlohmann::json> ReadJsonFile(std::string_view path) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.error();
  return ParseJsonText(*text, path);
}

std::string DescribeJson(const nlohmann::json& v, std::size_t max_chars) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() <= max_chars) return Quoted(s, max_chars);
    return "a string of " + std::to_string(s.size()) + " chars " + Quoted(s, max_chars) + "...";
  }
  if (!v.is_object() && !v.is_array())
    return v.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string body;
  AppendPrefix(v, body, max_chars);
  const bool cut = body.size() > max_chars;
  if (cut) {
    std::size_t n = max_chars;
    while (n > 0 && (static_cast<unsigned char>(body[n]) & 0xC0) == 0x80) --n;  // UTF-8 boundary
    body = body.substr(0, n) + "...";
  }
  std::string type = v.is_object() ? "an object" : "an array";
  if (cut) {
    type += " of " + std::to_string(v.size()) + (v.is_object() ? " keys" : " values");
  }
  return type + " " + body;
}

}  // namespace tierlab
