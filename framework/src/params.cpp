#include "pacer/params.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/printable.hpp"
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

int64_t Params::get_int(const std::string& key, int64_t def, int64_t min, int64_t max) const {
  const int64_t x = get_int(key, def);
  if (const toml::value* v = find(key); v && (x < min || x > max))
    fail(*v, key, fmt::format("must be between {} and {}, got {}", min, max, x));
  return x;
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

std::string Params::get_choice(const std::string& key, const std::string& def,
                               const std::vector<std::string>& allowed) const {
  const std::string s = get_string(key, def);
  if (const toml::value* v = find(key); v && std::find(allowed.begin(), allowed.end(), s) == allowed.end())
    fail(*v, key, fmt::format("must be one of {}, got \"{}\"", fmt::join(allowed, ", "), printable(s)));
  return s;
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

std::vector<std::string> Params::get_string_array(const std::string& key, const std::vector<std::string>& def) const {
  const toml::value* v = find(key);
  if (!v) return def;
  if (!v->is_array()) throw_wrong_type(*v, where_, key, "an array of strings");
  std::vector<std::string> out;
  for (const auto& item : v->as_array()) {
    if (!item.is_string())
      fail(item, key, fmt::format("must hold strings only, got {}", detail::toml_type_name(item.type())));
    out.push_back(item.as_string().str);
  }
  return out;
}

Params Params::get_table(const std::string& key, const std::string& where) const {
  const toml::value* v = find(key);
  if (!v) return Params(toml::table{}, where);
  if (!v->is_table()) throw_wrong_type(*v, where_, key, "a table");
  return Params(*v, where);
}

void Params::fail(const toml::value& at, const std::string& key, const std::string& what) const {
  throw InputError(fmt::format("{}{} {} {}", detail::toml_line_prefix(at), where_, key, what));
}

const std::pair<const std::string, toml::value>* Params::first_unknown() const {
  if (!table_.is_table()) return nullptr;
  // The first stray key in file order, so the message is stable and points at the top one.
  const std::pair<const std::string, toml::value>* first = nullptr;
  for (const auto& entry : table_.as_table()) {
    if (used_.count(entry.first)) continue;
    const size_t at = detail::toml_offset(entry.second), first_at = first ? detail::toml_offset(first->second) : 0;
    if (!first || at < first_at || (at == first_at && entry.first < first->first)) first = &entry;
  }
  return first;
}

std::string Params::known_keys() const { return fmt::format("{}", fmt::join(used_, ", ")); }

void Params::reject_unknown() const {
  const auto* first = first_unknown();
  if (!first) return;
  throw InputError(fmt::format("{}unknown key '{}' in {} ({})", detail::toml_line_prefix(first->second),
                               printable(first->first),
                               where_, used_.empty() ? "this plugin takes no params" : "known: " + known_keys()));
}

}  // namespace pacer
