#include "bench/workload/IoPriority.h"

#include <algorithm>
#include <charconv>

#include "bench/workload/FioUnits.h"
#include "tiering/core/QuotedText.h"

namespace tierlab {
namespace {

constexpr std::uint32_t kMaxClass = 3, kMaxLevel = 7, kMaxHint = 1023;

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const std::size_t at = s.find(sep);
    out.push_back(Trim(s.substr(0, at)));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

Expected<std::uint32_t> Number(std::string_view field, std::string_view entry) {
  std::uint32_t v = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) {
    return MakeError("entry " + QuotedText(entry) + ": expected a number, got " +
                     QuotedText(field));
  }
  return v;
}

// One direction's entries: BS/PCT[/CLASS/LEVEL[/HINT]], ':'-separated.
Expected<std::vector<CmdPrioEntry>> ParseEntries(std::string_view list, int kb_base) {
  std::vector<CmdPrioEntry> out;
  for (std::string_view entry : Split(list, ':')) {
    if (entry.empty()) break;  // as fio: the list ends at an empty entry
    const std::vector<std::string_view> f = Split(entry, '/');
    if (f.size() == 3 || f.size() > 5) {
      return MakeError("entry " + QuotedText(entry) +
                       ": expected BS/PCT, BS/PCT/CLASS/LEVEL or BS/PCT/CLASS/LEVEL/HINT");
    }
    auto bs = ParseFioSize(f[0], kb_base);
    if (!bs) return MakeError("entry " + QuotedText(entry) + ": " + bs.error().message);
    CmdPrioEntry e{*bs, 0, -1};
    std::uint32_t v[4] = {0, 0, 0, 0};  // pct, class, level, hint
    for (std::size_t i = 1; i < f.size(); ++i) {
      if (i == 1 && f[i].empty()) break;  // "BS/": no share
      auto n = Number(f[i], entry);
      if (!n) return n.error();
      v[i - 1] = *n;
    }
    // fio clamps each field to its range.
    e.percent = std::min<std::uint32_t>(v[0], 100);
    if (f.size() >= 4) {
      e.ioprio = IoprioValue(std::min(v[1], kMaxClass), std::min(v[2], kMaxLevel),
                             std::min(v[3], kMaxHint));
    }
    if (e.percent != 0) out.push_back(e);  // as fio: 0 % says nothing
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const CmdPrioEntry& a, const CmdPrioEntry& b) { return a.bs < b.bs; });
  return out;
}

}  // namespace

std::uint32_t IoprioValue(std::uint32_t klass, std::uint32_t level, std::uint32_t hint) {
  if (klass == 0) klass = kIoprioClassBe;
  return klass << 13 | hint << 3 | level;
}

std::uint32_t IoPriorities::job() const {
  if (prio < 0 && prioclass < 0) return 0;
  return IoprioValue(static_cast<std::uint32_t>(std::max(prioclass, 0)),
                     static_cast<std::uint32_t>(std::max(prio, 0)));
}

bool IoPriorities::per_io() const {
  for (int d = 0; d < 2; ++d) {
    if (cmdprio_percentage[d] != 0 || !cmdprio_bssplit[d].empty()) return true;
  }
  return false;
}

std::vector<std::uint32_t> IoPriorities::Values(int dir) const {
  std::vector<std::uint32_t> out = {job()};
  auto add = [&out](std::uint32_t v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  const std::uint32_t implicit =
      IoprioValue(cmdprio_class[dir] != 0 ? cmdprio_class[dir] : kIoprioClassRt, cmdprio[dir]);
  if (cmdprio_percentage[dir] != 0) add(implicit);
  for (const CmdPrioEntry& e : cmdprio_bssplit[dir]) {
    add(e.ioprio >= 0 ? static_cast<std::uint32_t>(e.ioprio) : implicit);
  }
  return out;
}

std::uint32_t IoPriorities::Pick(int dir, std::uint64_t length, std::uint32_t draw) const {
  const std::uint32_t implicit =
      IoprioValue(cmdprio_class[dir] != 0 ? cmdprio_class[dir] : kIoprioClassRt, cmdprio[dir]);
  if (cmdprio_percentage[dir] != 0) return draw < cmdprio_percentage[dir] ? implicit : job();
  std::uint32_t upto = 0;
  for (const CmdPrioEntry& e : cmdprio_bssplit[dir]) {
    if (e.bs != length) continue;
    upto += e.percent;
    if (draw < upto) return e.ioprio >= 0 ? static_cast<std::uint32_t>(e.ioprio) : implicit;
  }
  return job();
}

Expected<void> ParseCmdPrioBssplit(std::string_view text, int kb_base, IoPriorities& p) {
  const std::vector<std::string_view> parts = Split(Trim(text), ',');
  if (parts.size() > 3) {
    return MakeError("at most three comma-separated splits (reads, writes, trims), got '" +
                     std::string(Trim(text)) + "'");
  }
  for (int d = 0; d < 2; ++d) {
    // fio's str_split_parse: one split is every direction's.
    const std::string_view part = parts[std::min<std::size_t>(d, parts.size() - 1)];
    auto entries = ParseEntries(part, kb_base);
    if (!entries) return entries.error();
    p.cmdprio_bssplit[d] = std::move(*entries);
  }
  p.cmdprio_bssplit_given = !Trim(text).empty();
  return {};
}

std::string CmdPrioBssplitText(const IoPriorities& p) {
  auto one = [](const std::vector<CmdPrioEntry>& v) {
    std::string out;
    for (const CmdPrioEntry& e : v) {
      if (!out.empty()) out += ':';
      out += FormatFioSize(e.bs) + "/" + std::to_string(e.percent);
      if (e.ioprio >= 0) {
        const auto value = static_cast<std::uint32_t>(e.ioprio);
        out += "/" + std::to_string(value >> 13) + "/" + std::to_string(value & kMaxLevel) + "/" +
               std::to_string((value >> 3) & kMaxHint);
      }
    }
    return out;
  };
  const std::string reads = one(p.cmdprio_bssplit[0]), writes = one(p.cmdprio_bssplit[1]);
  return reads == writes && !reads.empty() ? reads : reads + "," + writes;
}

Expected<void> ValidateIoPriorities(const IoPriorities& p) {
  const bool percentage = p.cmdprio_percentage[0] != 0 || p.cmdprio_percentage[1] != 0;
  if (percentage && p.cmdprio_bssplit_given) {
    return MakeError("cmdprio_percentage: cmdprio_percentage and cmdprio_bssplit are exclusive");
  }
  for (int d = 0; d < 2; ++d) {
    const std::vector<CmdPrioEntry>& v = p.cmdprio_bssplit[d];
    for (std::size_t i = 0; i < v.size();) {
      std::uint32_t total = 0;
      std::size_t k = i;
      for (; k < v.size() && v[k].bs == v[i].bs; ++k) total += v[k].percent;
      if (total > 100) {
        return MakeError("cmdprio_bssplit: the entries of " + std::to_string(v[i].bs) +
                         "-byte I/Os add up to " + std::to_string(total) + " %, more than 100");
      }
      i = k;
    }
  }
  return {};
}

}  // namespace tierlab
