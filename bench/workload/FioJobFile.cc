#include "bench/workload/FioJobFile.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <string>

#include "bench/workload/FioUnits.h"
#include "layouts/JsonParse.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

struct Line {
  std::string key;
  std::string value;
  bool has_value = false;
  const std::string* file = nullptr;  // where the line is, for errors
  std::size_t number = 0;
  std::size_t seq = 0;      // position over all files, includes expanded in place
  std::size_t section = 0;  // which section header the line follows
};

struct Job {
  std::string name;
  const std::string* file = nullptr;
  std::size_t line = 0;
  std::size_t seq = 0;
  std::vector<Line> options;
};

// fio's engines flagged FIO_SYNCIO among those a job file may name: one I/O
// at a time per job, whatever iodepth says.
bool IsSyncEngine(std::string_view e) {
  for (std::string_view s : {"sync", "psync", "vsync", "pvsync", "pvsync2", "mmap"}) {
    if (e == s) return true;
  }
  return false;
}

std::string At(const std::string& file, std::size_t line) {
  return file + ":" + std::to_string(line) + ": ";
}

// fio's strip_blank_end: the line ends at its first ';' or '#'.
std::string_view StripComment(std::string_view l) {
  return Trim(l.substr(0, l.find_first_of(";#")));
}

// fio's ${VAR} substitution (unset: empty). Reserved keywords are refused,
// not left for a size parser to misread.
Expected<std::string> ExpandValue(std::string_view v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '$' && i + 1 < v.size() && v[i + 1] == '{') {
      const std::size_t close = v.find('}', i + 2);
      if (close != std::string_view::npos && close > i + 2) {
        const std::string name(v.substr(i + 2, close - i - 2));
        if (const char* env = std::getenv(name.c_str()); env != nullptr) out += env;
        i = close;
        continue;
      }
    }
    if (v[i] == '$') {
      for (std::string_view kw : {"$pagesize", "$mb_memory", "$ncpus"}) {
        if (v.substr(i).starts_with(kw)) {
          return MakeError("fio's reserved keyword " + std::string(kw) +
                           " is not supported; give the number");
        }
      }
    }
    out += v[i];
  }
  return out;
}

class Parser {
 public:
  explicit Parser(const FioParseOptions& o) : o_(o) {}

  Expected<std::vector<Profile>> Parse(std::string_view text, std::string_view file_name) {
    const std::string* file = Name(std::string(file_name));
    std::vector<std::string> stack;
    if (!o_.path.empty()) stack.push_back(Canonical(o_.path));
    if (auto r = ParseText(text, file, o_.path, 0, stack); !r) return r.error();
    if (jobs_.empty()) return MakeError(*file + ": no job sections (only [global] or empty)");
    return Build();
  }

 private:
  const std::string* Name(std::string s) {
    names_.push_back(std::move(s));
    return &names_.back();
  }

  static std::string Canonical(const std::string& path) {
    std::error_code ec;
    auto c = std::filesystem::weakly_canonical(path, ec);
    return ec ? path : c.string();
  }

  // `depth` 0 is the job file itself; included files (depth > 0) hold
  // options only, which go to the section that included them.
  Expected<void> ParseText(std::string_view text, const std::string* file, const std::string& path,
                           int depth, std::vector<std::string>& stack) {
    if (auto text_only = CheckTextBytes(text, *file, "a fio job file"); !text_only) {
      return text_only.error();
    }
    std::size_t line_no = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
      const std::size_t nl = text.find('\n', pos);
      const std::string_view raw =
          text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos);
      pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
      ++line_no;
      const std::string_view l = StripComment(raw);
      if (l.empty()) continue;
      if (l.front() == '[') {
        if (depth > 0)
          return MakeError(At(*file, line_no) + "an included file may not contain sections");
        if (l.back() != ']' || l.size() < 3)
          return MakeError(At(*file, line_no) + "malformed section header " + QuotedText(l));
        const std::string_view name = Trim(l.substr(1, l.size() - 2));
        if (name.empty() || name.find_first_of("[]") != std::string_view::npos) {
          return MakeError(At(*file, line_no) + "malformed section header " + QuotedText(l));
        }
        in_section_ = true;
        ++section_;
        // fio: any section whose name starts with "global" is a global one.
        in_global_ = name.starts_with("global");
        if (!in_global_) jobs_.push_back({std::string(name), file, line_no, ++seq_, {}});
        continue;
      }
      if (l.starts_with("include") && l.size() > 7 && (l[7] == ' ' || l[7] == '\t')) {
        if (auto r = Include(Trim(l.substr(8)), file, line_no, path, depth, stack); !r) return r;
        continue;
      }
      Line opt;
      opt.file = file;
      opt.number = line_no;
      opt.seq = ++seq_;
      opt.section = section_;
      const std::size_t eq = l.find('=');
      opt.key = std::string(Trim(l.substr(0, eq)));
      if (opt.key.empty())
        return MakeError(At(*file, line_no) + "missing option name in " + QuotedText(l));
      if (eq != std::string_view::npos) {
        auto v = ExpandValue(Trim(l.substr(eq + 1)));
        if (!v) return MakeError(At(*file, line_no) + opt.key + ": " + v.error().message);
        opt.value = std::string(Trim(*v));
        opt.has_value = true;
      }
      if (!in_section_)
        return MakeError(At(*file, line_no) + opt.key + ": option outside a section");
      (in_global_ ? global_ : jobs_.back().options).push_back(std::move(opt));
    }
    return {};
  }

  Expected<void> Include(std::string_view name, const std::string* file, std::size_t line_no,
                         const std::string& including_path, int depth,
                         std::vector<std::string>& stack) {
    const std::string at = At(*file, line_no) + "include " + std::string(name) + ": ";
    if (name.empty()) return MakeError(At(*file, line_no) + "include: needs a file name");
    if (!in_section_) return MakeError(at + "outside a section");
    if (including_path.empty()) {
      return MakeError(at + "includes need the job file's path (not available here)");
    }
    if (depth + 1 > kMaxIncludeDepth) {
      return MakeError(at + "includes nested more than " + std::to_string(kMaxIncludeDepth) +
                       " deep");
    }
    // As fio: the name as given if it exists, else next to the including file.
    std::filesystem::path target(name);
    std::error_code ec;
    if (!std::filesystem::exists(target, ec) && target.is_relative()) {
      target = std::filesystem::path(including_path).parent_path() / target;
    }
    if (!std::filesystem::is_regular_file(target, ec)) {
      return MakeError(at + "cannot open: no such file");
    }
    const std::string canonical = Canonical(target.string());
    for (const std::string& s : stack) {
      if (s == canonical) {
        std::string chain;
        for (const std::string& c : stack) {
          chain += std::filesystem::path(c).filename().string() + " -> ";
        }
        return MakeError(at + "include cycle (" + chain +
                         std::filesystem::path(canonical).filename().string() + ")");
      }
    }
    auto text = ReadTextFile(target.string());
    if (!text) return MakeError(at + text.error().message);
    texts_.push_back(std::move(*text));
    stack.push_back(canonical);
    auto r = ParseText(texts_.back(), Name(std::string(name)), target.string(), depth + 1, stack);
    stack.pop_back();
    return r;
  }

  Expected<std::vector<Profile>> Build() {
    if (o_.global_options != nullptr) {
      *o_.global_options = nlohmann::json::object();
      for (const Line& o : global_) (*o_.global_options)[o.key] = o.value;
    }
    if (o_.job_options != nullptr) {
      o_.job_options->clear();
      for (const Job& job : jobs_) {
        nlohmann::json j = nlohmann::json::object();
        for (const Line& o : job.options) j[o.key] = o.value;
        o_.job_options->push_back(std::move(j));
      }
    }
    std::vector<Profile> out;
    for (const Job& job : jobs_) {
      Profile p;
      p.name = job.name;
      int kb_base = 1024;
      std::string_view engine;  // the last ioengine= that applies
      auto apply = [&](const Line& o) -> Expected<void> {
        auto r = SetProfileOption(p, o.key, o.value, o.has_value, kb_base);
        if (!r) return MakeError(At(*o.file, o.number) + r.error().message);
        if (*r == OptionResult::kUnknown) {
          if (!o_.ignore_unknown) {
            const std::string_view why = RefusalReason(o.key);
            return MakeError(At(*o.file, o.number) + "unknown option " + QuotedText(o.key) + " (" +
                             (why.empty() ? "tierlab does not support it" : std::string(why)) +
                             "; use --ignore-unknown to skip it)");
          }
          if (o_.ignored != nullptr &&
              std::find(o_.ignored->begin(), o_.ignored->end(), o.key) == o_.ignored->end()) {
            o_.ignored->push_back(o.key);
          }
          return {};
        }
        if (o.key == "ioengine") engine = Trim(o.value);
        return {};
      };
      // fio sorts kb_base to the front of its section: it applies to the
      // section's sizes written before it too. The last one wins.
      auto section_kb_base = [&](const std::vector<Line>& lines, std::size_t section) {
        for (const Line& o : lines) {
          if (o.section == section && o.key == "kb_base" && o.has_value) {
            kb_base = Trim(o.value) == "1000" ? 1000 : 1024;
          }
        }
      };
      // Global lines apply to the jobs that follow them.
      std::size_t section = 0;
      for (const Line& o : global_) {
        if (o.seq > job.seq) break;
        if (o.section != section) section_kb_base(global_, section = o.section);
        if (auto r = apply(o); !r) return r.error();
      }
      if (!job.options.empty()) section_kb_base(job.options, job.options.front().section);
      for (const Line& o : job.options) {
        if (auto r = apply(o); !r) return r.error();
      }
      // fio caps a synchronous engine's queue at one I/O (and says so).
      // Without ioengine fio runs psync; tierlab then keeps the job's
      // iodepth (its volume takes asynchronous I/O) and says what fio would do.
      // With io_submit_mode=offload fio runs iodepth workers, each at depth
      // one: the depth stays.
      if (p.iodepth > 1 && !p.io_submit_offload) {
        if (IsSyncEngine(engine)) {
          Note(job, "ioengine=" + std::string(engine) + " is synchronous: iodepth " +
                        std::to_string(p.iodepth) + " capped at 1, as fio does");
          p.iodepth = 1;
        } else if (engine.empty()) {
          Note(job, "no ioengine: fio's default (psync) would cap iodepth " +
                        std::to_string(p.iodepth) +
                        " at 1; tierlab keeps it (write ioengine=libaio or io_uring to say so)");
        }
      }
      if (auto v = ValidateProfile(p); !v) {
        return MakeError(At(*job.file, job.line) + "[" + job.name + "]: " + v.error().message);
      }
      // fio's wait_for_ok: the waitee is one section defined before this one.
      if (!p.wait_for.empty()) {
        const auto waitees = std::count_if(out.begin(), out.end(),
                                           [&](const Profile& q) { return q.name == p.wait_for; });
        const std::string at = At(*job.file, job.line) + "[" + job.name + "]: wait_for: ";
        if (p.wait_for == p.name) return MakeError(at + "a section cannot wait for itself");
        if (waitees == 0) {
          return MakeError(at + "no section named " + QuotedText(p.wait_for) + " before this one");
        }
        if (waitees > 1) {
          return MakeError(at + "several sections are named " + QuotedText(p.wait_for) +
                           "; wait_for needs one");
        }
      }
      out.push_back(std::move(p));
    }
    return out;
  }

  const FioParseOptions& o_;
  std::deque<std::string> names_;  // file names, for errors (stable addresses)
  std::deque<std::string> texts_;  // included files' text
  void Note(const Job& job, const std::string& what) {
    if (o_.notes != nullptr)
      o_.notes->push_back(At(*job.file, job.line) + "[" + job.name + "]: " + what);
  }

  std::vector<Line> global_;
  std::size_t section_ = 0;
  std::vector<Job> jobs_;
  bool in_global_ = false, in_section_ = false;
  std::size_t seq_ = 0;
};

}  // namespace

Expected<std::vector<Profile>> ParseFioJobFile(std::string_view text, std::string_view file_name,
                                               const FioParseOptions& options) {
  return Parser(options).Parse(text, file_name);
}

Expected<std::vector<Profile>> ParseFioJobFile(std::string_view text, std::string_view file_name,
                                               bool ignore_unknown) {
  FioParseOptions o;
  o.ignore_unknown = ignore_unknown;
  return ParseFioJobFile(text, file_name, o);
}

}  // namespace tierlab
