#pragma once
// One table per schema. A row is one JSON key: its type, unit and meaning
// (docs/CONFIG.md, which a test compares with the tables), how it is read
// into the typed spec and how it is written back. Parsing, the "known keys"
// list of an unknown-key error, ToJson and the documentation all come from
// the table, so a key is named in one place.
//
// Defaults are the values of a default-constructed spec: `read` leaves the
// member as it is when the key is absent, and the documented default is what
// `write` gives for the default spec.

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "layouts/FieldDoc.h"
#include "layouts/JsonFields.h"

namespace tierlab {

template <typename Spec>
struct Field {
  std::string_view key;
  std::string_view type;
  std::string_view unit;  // "" = none
  std::string_view meaning;
  // Reads `key` with `f` into `s`; `s` keeps its value when the key is absent.
  void (*read)(JsonFields& f, std::string_view key, Spec& s);
  // The value to write, or null to leave the key out (no default to show,
  // or a key only accepted on input such as an alias).
  nlohmann::json (*write)(const Spec& s);
  // Written only when the value differs from the default (keys whose
  // default means "not set", such as a capacity of 0).
  bool omit_default = false;
  // The default as docs/CONFIG.md says it, where the default spec's value
  // would not say it ("the first tier"); empty: write(default spec).
  std::string_view fallback_doc = {};
};

template <typename Spec>
std::vector<std::string_view> FieldKeys(std::span<const Field<Spec>> table) {
  std::vector<std::string_view> keys;
  keys.reserve(table.size());
  for (const auto& row : table) keys.push_back(row.key);
  return keys;
}

// Checks for unknown keys, then reads every row in table order (the first
// error wins, so the order is the order errors are found in).
template <typename Spec>
void ReadFields(std::span<const Field<Spec>> table, JsonFields& f, Spec& s) {
  f.OnlyKeys(FieldKeys(table));
  for (const auto& row : table) {
    if (row.read != nullptr) row.read(f, row.key, s);
  }
}

template <typename Spec>
nlohmann::json WriteFields(std::span<const Field<Spec>> table, const Spec& s) {
  static const Spec kDefaults{};
  nlohmann::json j = nlohmann::json::object();
  for (const auto& row : table) {
    if (row.write == nullptr) continue;
    nlohmann::json v = row.write(s);
    if (v.is_null() || (row.omit_default && v == row.write(kDefaults))) continue;
    j[std::string(row.key)] = std::move(v);
  }
  return j;
}

template <typename Spec>
std::vector<FieldDoc> DocumentFields(std::span<const Field<Spec>> table) {
  static const Spec kDefaults{};
  std::vector<FieldDoc> docs;
  for (const auto& row : table) {
    nlohmann::json d = row.write != nullptr ? row.write(kDefaults) : nlohmann::json();
    std::string fallback = d.is_null() ? "-" : d.dump();
    if (!row.fallback_doc.empty()) fallback = row.fallback_doc;
    docs.push_back({std::string(row.key), std::string(row.type), std::move(fallback),
                    row.unit.empty() ? "-" : std::string(row.unit), std::string(row.meaning)});
  }
  return docs;
}

}  // namespace tierlab
