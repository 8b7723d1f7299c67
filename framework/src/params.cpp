#include "pacer/params.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "toml_detail.hpp"

namespace pacer {

namespace detail {

std::string toml_type_name(toml::value_t type) {
  switch (type) {
    case toml::value_t::empty: return "nothing";
    case toml::value_t::boolean: return "boolean";
    case toml::value_t::integer: return "integer";
    case toml::value_t::floating: return "float";
    case toml::value_t::string: return "string";
    case toml::value_t::offset_datetime:
    case toml::value_t::local_datetime: return "datetime";
    case toml::value_t::local_date: return "date";
    case toml::value_t::local_time: return "time";
    case toml::value_t::array: return "array";
    case toml::value_t::table: return "table";
  }
  return "unknown";
}

std::string toml_line_prefix(const toml::value& value) {
  const auto loc = value.location();
  // toml11 names values made in code "unknown file"; they have no line worth printing.
  if (loc.file_name() == "unknown file" || loc.file_name().empty()) return "";
  return fmt::format("{}:{}: ", loc.file_name(), loc.line());
}

size_t toml_offset(const toml::value& value) {
  const auto* region = dynamic_cast<const toml::detail::region*>(toml::detail::get_region(value));
  return region ? static_cast<size_t>(region->first() - region->begin()) : 0;
}

}  // namespace detail

Params::Params(toml::value table, std::string where) : table_(std::move(table)), where_(std::move(where)) {
  if (!table_.is_uninitialized() && !table_.is_table()) {
    throw InputError(fmt::format("{}{} must be a table, got {}", detail::toml_line_prefix(table_), where_,
                                 detail::toml_type_name(table_.type())));
  }
}

const toml::value* Params::find(const std::string& key) const {
  used_.insert(key);
  if (!table_.is_table()) return nullptr;
  const auto& table = table_.as_table();
  const auto it = table.find(key);
  return it == table.end() ? nullptr : &it->second;
}

bool Params::has(const std::string& key) const { return find(key) != nullptr; }

namespace {
[[noreturn]] void throw_wrong_type(const toml::value& v, const std::string& where, const std::string& key,
                                   const char* wanted) {
  throw InputError(fmt::format("{}{} {} must be {}, got {}", detail::toml_line_prefix(v), where, key, wanted,
                               detail::toml_type_name(v.type())));
}
}  // namespace

int64_t Params::get_int(const std::string& key, int64_t def) const {
  const toml::value* v = find(key);
  if (!v) return def;
  if (!v->is_integer()) throw_wrong_type(*v, where_, key, "an integer");
  return v->as_integer();
}

double Params::get_double(const std::string& key, double def) const {
  const toml::value* v = find(key);
  if (!v) return def;
  // `x = 2` is a fine way to write 2.0; TOML would otherwise force users to add ".0".
  if (v->is_integer()) return static_cast<double>(v->as_integer());
  if (!v->is_floating()) throw_wrong_type(*v, where_, key, "a number");
  return v->as_floating();
}

bool Params::get_bool(const std::string& key, bool def) const {
  const toml::value* v = find(key);
  if (!v) return def;
  if (!v->is_boolean()) throw_wrong_type(*v, where_, key, "true or false");
  return v->as_boolean();
}

std::string Params::get_string(const std::string& key, const std::string& def) const {
  const toml::value* v = find(key);
  if (!v) return def;
  if (!v->is_string()) throw_wrong_type(*v, where_, key, "a string");
  return v->as_string().str;
}

std::vector<int64_t> Params::get_int_array(const std::string& key, const std::vector<int64_t>& def) const {
  const toml::value* v = find(key);
  if (!v) return def;
  if (!v->is_array()) throw_wrong_type(*v, where_, key, "an array of integers");
  std::vector<int64_t> out;
  for (const auto& item : v->as_array()) {
    if (!item.is_integer()) throw_wrong_type(item, where_, key, "an array of integers");
    out.push_back(item.as_integer());
  }
  return out;
}

void Params::reject_unknown() const {
  if (!table_.is_table()) return;
  // Report the first stray key in file order, so the message is stable and points at the top one.
  const std::pair<const std::string, toml::value>* first = nullptr;
  for (const auto& entry : table_.as_table()) {
    if (used_.count(entry.first)) continue;
    const size_t at = detail::toml_offset(entry.second), first_at = first ? detail::toml_offset(first->second) : 0;
    if (!first || at < first_at || (at == first_at && entry.first < first->first)) {
      first = &entry;
    }
  }
  if (!first) return;
  std::string known;
  for (const auto& k : used_) known += (known.empty() ? "" : ", ") + k;
  throw InputError(fmt::format("{}unknown key '{}' in {} ({})", detail::toml_line_prefix(first->second), first->first,
                               where_, known.empty() ? "this plugin takes no params" : "known: " + known));
}

}  // namespace pacer
