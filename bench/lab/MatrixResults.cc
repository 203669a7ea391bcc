#include "bench/lab/MatrixResults.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <vector>

#include "layouts/JsonParse.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

enum class Kind : std::uint8_t { kString, kUnsigned, kNumber, kObject, kArray };

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kString: return "a string";
    case Kind::kUnsigned: return "an unsigned integer";
    case Kind::kNumber: return "a number";
    case Kind::kObject: return "an object";
    case Kind::kArray: return "an array";
  }
  return "?";
}

bool IsKind(const nlohmann::json& v, Kind k) {
  switch (k) {
    case Kind::kString: return v.is_string();
    // Built in memory, a non-negative int is signed; parsed, it is unsigned.
    case Kind::kUnsigned:
      return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
    case Kind::kNumber: return v.is_number();
    case Kind::kObject: return v.is_object();
    case Kind::kArray: return v.is_array();
  }
  return false;
}

// "r.json: cells[3].jobs[0].read" and its fields, checked one by one; the
// first mismatch is kept.
class ShapeCheck {
 public:
  explicit ShapeCheck(std::string name) : name_(std::move(name)) {}

  // `where` is the path of `obj` ("" at the top). A missing key passes
  // unless `required`; a present one must be of kind `k`.
  const nlohmann::json* Field(const nlohmann::json& obj, const std::string& where, const char* key,
                              Kind k, bool required = false) {
    if (!error_.empty()) return nullptr;
    const std::string path = where.empty() ? key : where + "." + key;
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) Fail(path, std::string("missing; must be ") + KindName(k));
      return nullptr;
    }
    if (!IsKind(*it, k)) {
      Fail(path, std::string("must be ") + KindName(k) + ", got " + DescribeJson(*it));
      return nullptr;
    }
    return &*it;
  }

  // Every value of an object must be a number (latency percentiles).
  void Numbers(const nlohmann::json& obj, const std::string& where) {
    for (auto it = obj.begin(); it != obj.end() && error_.empty(); ++it) {
      if (!it->is_number()) {
        Fail(where + "." + QuotedText(it.key(), '"'), "must be a number, got " + DescribeJson(*it));
      }
    }
  }

  void Fail(const std::string& path, const std::string& what) {
    if (error_.empty()) error_ = name_ + ": " + path + ": " + what;
  }
  bool ok() const { return error_.empty(); }
  Error error() const { return MakeError(error_); }

 private:
  std::string name_;
  std::string error_;
};

// A confidence interval (bench/lab/CiFormat.h): absent, null, or an object
// with numbers lo <= hi and n.
void CheckCi(ShapeCheck& c, const nlohmann::json& obj, const std::string& where, const char* key) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return;
  const std::string at = where + "." + key;
  if (!it->is_object()) {
    c.Fail(at,
           "must be null or an object {lo, hi, half_width, n, method}, got " + DescribeJson(*it));
    return;
  }
  const auto* lo = c.Field(*it, at, "lo", Kind::kNumber, true);
  const auto* hi = c.Field(*it, at, "hi", Kind::kNumber, true);
  c.Field(*it, at, "n", Kind::kUnsigned, true);
  if (lo != nullptr && hi != nullptr && !(lo->get<double>() <= hi->get<double>())) {
    c.Fail(at, "lo must not be above hi");
  }
}

void CheckOp(ShapeCheck& c, const nlohmann::json& job, const std::string& where, const char* op) {
  const auto* s = c.Field(job, where, op, Kind::kObject);
  if (s == nullptr) return;
  const std::string at = where + "." + op;
  c.Field(*s, at, "iops", Kind::kNumber);
  c.Field(*s, at, "bw_bytes", Kind::kNumber);
  c.Field(*s, at, "total_ios", Kind::kUnsigned);
  c.Field(*s, at, "errors", Kind::kNumber);
  CheckCi(c, *s, at, "iops_ci95");
  CheckCi(c, *s, at, "bw_bytes_ci95");
  const auto* lat = c.Field(*s, at, "lat_ns", Kind::kObject);
  if (lat == nullptr) return;
  CheckCi(c, *lat, at + ".lat_ns", "mean_ci95");
  c.Field(*lat, at + ".lat_ns", "mean", Kind::kNumber);
  c.Field(*lat, at + ".lat_ns", "max", Kind::kNumber);
  if (const auto* pc = c.Field(*lat, at + ".lat_ns", "percentile", Kind::kObject)) {
    c.Numbers(*pc, at + ".lat_ns.percentile");
  }
}

void CheckCell(ShapeCheck& c, const nlohmann::json& cell, const std::string& where) {
  if (!cell.is_object()) {
    c.Fail(where, "must be an object, got " + DescribeJson(cell));
    return;
  }
  c.Field(cell, where, "index", Kind::kUnsigned, true);
  c.Field(cell, where, "id", Kind::kString, true);
  for (const char* key : {"label", "layout_name", "profile_name", "mode"}) {
    c.Field(cell, where, key, Kind::kString);
  }
  c.Field(cell, where, "repeat", Kind::kUnsigned);
  c.Field(cell, where, "seed", Kind::kUnsigned);
  c.Field(cell, where, "axes", Kind::kObject);
  if (const auto* cache = c.Field(cell, where, "cache", Kind::kObject)) {
    c.Field(*cache, where + ".cache", "read_hit_ratio", Kind::kNumber);
  }
  const auto* jobs = c.Field(cell, where, "jobs", Kind::kArray, true);
  if (jobs == nullptr) return;
  if (jobs->empty()) {
    c.Fail(where + ".jobs", "must not be empty");
    return;
  }
  const nlohmann::json& job = jobs->front();
  if (!job.is_object()) {
    c.Fail(where + ".jobs[0]", "must be an object, got " + DescribeJson(job));
    return;
  }
  for (const char* op : {"read", "write", "complete"}) CheckOp(c, job, where + ".jobs[0]", op);
}

std::string Indented(const std::string& text, const std::string& pad) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (char ch : text) {
    out += ch;
    if (ch == '\n') out += pad;  // JSON strings never hold a raw newline
  }
  return out;
}

Error SysError(const std::string& what) {
  return MakeError(what + ": " + std::strerror(errno), ErrorKind::kIo);
}

}  // namespace

Expected<void> CheckResultsJson(const nlohmann::json& j, const std::string& name) {
  if (!j.is_object()) {
    return MakeError(name + ": not a tierlab results document (the top level is " +
                     DescribeJson(j, 24) + ", not an object)");
  }
  for (const char* key : {"matrix_hash", "cells"}) {
    if (!j.contains(key)) {
      return MakeError(name + ": not a tierlab matrix results document (no \"" + key +
                       "\"; write one with tierlab matrix -o)");
    }
  }
  ShapeCheck c(name);
  c.Field(j, "", "matrix_hash", Kind::kString, true);
  for (const char* key : {"matrix_name", "tierlab_version", "shard"}) {
    c.Field(j, "", key, Kind::kString);
  }
  c.Field(j, "", "cell_count", Kind::kUnsigned);
  if (auto m = j.find("matrix"); m != j.end() && m->is_object()) {
    c.Field(*m, "matrix", "repeats", Kind::kUnsigned);
    c.Field(*m, "matrix", "axes", Kind::kObject);
  }
  const auto* cells = c.Field(j, "", "cells", Kind::kArray, true);
  if (cells != nullptr) {
    for (std::size_t i = 0; i < cells->size() && c.ok(); ++i) {
      CheckCell(c, (*cells)[i], "cells[" + std::to_string(i) + "]");
    }
  }
  if (!c.ok()) return c.error();
  return {};
}

ResultsFile::ResultsFile(nlohmann::json header) : header_(std::move(header)) {
  header_.erase("cells");
}

void ResultsFile::Add(const nlohmann::json& cell) {
  const auto index = cell.at("index").get<std::size_t>();
  // Cells sit two levels down in the document: indent their lines by two.
  cells_[index] = Indented(cell.dump(1), "  ");
}

std::string ResultsFile::Text() const {
  nlohmann::json h = header_;
  h["cells"] = nlohmann::json::array();
  std::string head = h.dump(1);
  // The top-level key is the only one indented by exactly one space.
  const std::string empty = "\n \"cells\": []";
  const std::size_t at = head.find(empty);
  std::string cells = "\n \"cells\": [";
  if (cells_.empty()) {
    cells += "]";
  } else {
    bool first = true;
    for (const auto& [index, text] : cells_) {
      cells += first ? "\n  " : ",\n  ";
      cells += text;
      first = false;
    }
    cells += "\n ]";
  }
  head.replace(at, empty.size(), cells);
  return head + "\n";
}

nlohmann::json ResultsFile::Json() const {
  nlohmann::json j = header_;
  j["cells"] = nlohmann::json::array();
  for (const auto& [index, text] : cells_) {
    auto cell = ParseJsonText(text, "cell");
    j["cells"].push_back(cell.ok() ? std::move(cell.value()) : nlohmann::json());
  }
  return j;
}

Expected<void> ResultsFile::WriteAtomic(const std::string& path) const {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // A new name in the same directory (so the rename is atomic), created
  // with the mode and umask a plain new file gets.
  static std::atomic<unsigned> counter{0};
  const std::string tmp =
      (dir / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()) + "." +
              std::to_string(counter.fetch_add(1))))
          .string();
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return SysError(path + ": cannot create " + tmp);
  const std::string text = Text();
  const std::string write_error = path + ": cannot write " + tmp;
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Error e = SysError(write_error);
      ::close(fd);
      ::unlink(tmp.c_str());
      return e;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    Error e = SysError(path + ": cannot flush " + tmp);
    ::unlink(tmp.c_str());
    return e;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Error e = SysError(path + ": cannot rename " + tmp + " to it");
    ::unlink(tmp.c_str());
    return e;
  }
  // The rename itself is durable once the directory is.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

Expected<void> LoadResumedCells(const nlohmann::json& previous, const std::string& name,
                                const ResumeKey& key, ResultsFile& into) {
  if (auto shape = CheckResultsJson(previous, name); !shape.ok()) return shape.error();
  const std::string hash = previous.at("matrix_hash").get<std::string>();
  if (hash != key.matrix_hash) {
    return MakeError(name + ": from another matrix (matrix_hash " + hash + ", this matrix has " +
                     key.matrix_hash + "); give another -o, or remove the file to start over");
  }
  const std::string shard = previous.value("shard", "");
  if (shard != key.shard) {
    return MakeError(name + ": holds shard " + shard + ", this run is shard " + key.shard);
  }
  const std::string version = previous.value("tierlab_version", "");
  if (version != key.tierlab_version) {
    return MakeError(name + ": written by tierlab " + version + ", this is tierlab " +
                     key.tierlab_version + "; results of two versions do not mix");
  }
  for (const auto& cell : previous.at("cells")) into.Add(cell);
  return {};
}

}  // namespace tierlab
