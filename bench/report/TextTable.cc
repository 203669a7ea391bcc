#include "bench/report/TextTable.h"

#include <algorithm>
#include <cstdint>
#include <sstream>

namespace tierlab {

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string MarkdownCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

namespace {

// Columns a string takes in a terminal: UTF-8 code points ("±" is one).
std::size_t DisplayWidth(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

}  // namespace

std::string TextTable::Render(TableStyle style) const {
  std::ostringstream o;
  if (style == TableStyle::kCsv) {
    auto line = [&](const std::vector<std::string>& cells) {
      for (std::size_t i = 0; i < cells.size(); ++i) o << (i ? "," : "") << CsvField(cells[i]);
      o << "\n";
    };
    line(header);
    for (const auto& r : rows) line(r);
    return o.str();
  }
  const bool md = style == TableStyle::kMarkdown;
  auto cell = [&](const std::string& s) { return md ? MarkdownCell(s) : s; };
  std::vector<std::size_t> w(header.size(), 0);
  for (std::size_t i = 0; i < header.size(); ++i) {
    w[i] = std::max<std::size_t>(DisplayWidth(cell(header[i])), md ? 3 : 1);
  }
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) {
      w[i] = std::max(w[i], DisplayWidth(cell(r[i])));
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    if (md) o << "|";
    for (std::size_t i = 0; i < w.size(); ++i) {
      const std::string c = i < cells.size() ? cell(cells[i]) : "";
      const std::string pad(w[i] - DisplayWidth(c), ' ');
      const bool left = i < label_columns;
      if (md) {
        o << " " << (left ? c + pad : pad + c) << " |";
      } else {
        std::string s = left ? c + pad : pad + c;
        if (i + 1 == w.size()) {
          while (!s.empty() && s.back() == ' ') s.pop_back();
        }
        o << s << (i + 1 < w.size() ? "  " : "");
      }
    }
    o << "\n";
  };
  line(header);
  if (md) {
    o << "|";
    for (std::size_t i = 0; i < w.size(); ++i) {
      const std::string dashes(w[i] - 1, '-');
      if (i < label_columns) {
        o << " :" << dashes << " |";
      } else {
        o << " " << dashes << ": |";
      }
    }
    o << "\n";
  }
  for (const auto& r : rows) line(r);
  return o.str();
}

}  // namespace tierlab
