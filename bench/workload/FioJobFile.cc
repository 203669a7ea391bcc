#include "bench/workload/FioJobFile.h"

#include <string>

#include "bench/workload/FioUnits.h"
#include "layouts/JsonParse.h"

namespace tierlab {
namespace {

struct Line {
  std::string_view key;
  std::string_view value;
  bool has_value = false;
  std::size_t number = 0;
};

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s.substr(0, 64)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (s.size() > 64) out += "...";
  return out + "'";
}

}  // namespace

Expected<std::vector<Profile>> ParseFioJobFile(std::string_view text, std::string_view file_name,
                                               bool ignore_unknown) {
  const std::string file(file_name);
  auto at = [&](std::size_t line) { return file + ":" + std::to_string(line) + ": "; };
  if (auto text_only = CheckTextBytes(text, file, "a fio job file"); !text_only) {
    return text_only.error();
  }

  // Options are replayed in file order onto a fresh Profile per job: first
  // every [global] option seen so far, then the job's own.
  std::vector<Line> global;
  struct Job {
    std::string name;
    std::size_t line;
    std::vector<Line> options;
  };
  std::vector<Job> jobs;
  bool in_global = false, in_section = false;

  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t nl = text.find('\n', pos);
    std::string_view raw =
        text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    ++line_no;
    const std::string_view l = Trim(raw);
    if (l.empty() || l.front() == ';' || l.front() == '#') continue;
    if (l.front() == '[') {
      if (l.back() != ']' || l.size() < 3)
        return MakeError(at(line_no) + "malformed section header " + Quote(l));
      const std::string_view name = Trim(l.substr(1, l.size() - 2));
      if (name.empty() || name.find_first_of("[]") != std::string_view::npos) {
        return MakeError(at(line_no) + "malformed section header " + Quote(l));
      }
      in_section = true;
      in_global = name == "global";
      if (!in_global) jobs.push_back({std::string(name), line_no, {}});
      continue;
    }
    Line opt;
    opt.number = line_no;
    const std::size_t eq = l.find('=');
    opt.key = Trim(l.substr(0, eq));
    if (eq != std::string_view::npos) {
      opt.value = Trim(l.substr(eq + 1));
      opt.has_value = true;
    }
    if (opt.key.empty()) return MakeError(at(line_no) + "missing option name in " + Quote(l));
    if (opt.key == "include" || opt.key.starts_with("include ")) {
      return MakeError(at(line_no) + "include: not supported; inline the included file");
    }
    if (!in_section)
      return MakeError(at(line_no) + std::string(opt.key) + ": option outside a section");
    if (opt.value.find('$') != std::string_view::npos) {
      return MakeError(at(line_no) + std::string(opt.key) +
                       ": variable expansion ($...) is not supported, got " + Quote(opt.value));
    }
    (in_global ? global : jobs.back().options).push_back(opt);
  }
  if (jobs.empty()) return MakeError(file + ": no job sections (only [global] or empty)");

  // Global lines apply to the jobs that follow them: remember, per job, how
  // many global lines preceded it.
  std::vector<Profile> out;
  for (const Job& job : jobs) {
    Profile p;
    p.name = job.name;
    int kb_base = 1024;
    auto apply = [&](const Line& o) -> Expected<void> {
      auto r = SetProfileOption(p, o.key, o.value, o.has_value, kb_base);
      if (!r) return MakeError(at(o.number) + r.error().message);
      if (*r == OptionResult::kUnknown) {
        if (ignore_unknown) return {};
        return MakeError(at(o.number) + "unknown option " + Quote(o.key) +
                         " (tierlab does not support it; use --ignore-unknown to skip it)");
      }
      if (o.key == "kb_base") kb_base = Trim(o.value) == "1000" ? 1000 : 1024;
      return {};
    };
    for (const Line& o : global) {
      if (o.number > job.line) break;
      if (auto r = apply(o); !r) return r.error();
    }
    for (const Line& o : job.options) {
      if (auto r = apply(o); !r) return r.error();
    }
    if (auto v = ValidateProfile(p); !v) {
      return MakeError(at(job.line) + "[" + job.name + "]: " + v.error().message);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace tierlab
