#pragma once
// A table of strings rendered as aligned text, Markdown or CSV: the shared
// renderer of the matrix report and the diff. The first column is left
// aligned (a label), the others right aligned (numbers).

#include <cstdint>
#include <string>
#include <vector>

namespace tierlab {

enum class TableStyle : std::uint8_t { kText, kMarkdown, kCsv };

struct TextTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::size_t label_columns = 1;  // left-aligned leading columns

  std::string Render(TableStyle style) const;
};

// CSV field quoting (RFC 4180): quoted when it holds a comma, quote or newline.
std::string CsvField(const std::string& s);
// Markdown cell: escapes '|'.
std::string MarkdownCell(const std::string& s);

}  // namespace tierlab
