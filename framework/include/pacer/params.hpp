#pragma once
// A TOML table read key by key: a plugin's [<kind>.params], or a table of the config file. Every
// read records the key; then reject_unknown() (the host calls it after a plugin's factory
// returns) makes a misspelt key an error naming the key and its line.
#include <cstdint>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include <toml.hpp>

namespace pacer {

// The one reader of TOML tables: plugin params, and every table of the config file itself.
class Params {
 public:
  Params() = default;
  // where: the table's name as written, e.g. "[backend.params]"; errors get "file:line: " in front,
  // taken from the values themselves. A non-table value throws InputError.
  Params(toml::value table, std::string where);

  bool has(const std::string& key) const;
  // Typed read with a default; a value of the wrong type throws InputError naming key and line.
  int64_t get_int(const std::string& key, int64_t def) const;
  // Also range-checked, so no caller narrows a negative or huge value silently.
  int64_t get_int(const std::string& key, int64_t def, int64_t min, int64_t max) const;
  double get_double(const std::string& key, double def) const;
  bool get_bool(const std::string& key, bool def) const;
  std::string get_string(const std::string& key, const std::string& def) const;
  // A string that must be one of `allowed`.
  std::string get_choice(const std::string& key, const std::string& def, const std::vector<std::string>& allowed) const;
  // An array of integers, e.g. devices = [0, 1]; anything else in it is an InputError.
  std::vector<int64_t> get_int_array(const std::string& key, const std::vector<int64_t>& def) const;
  std::vector<std::string> get_string_array(const std::string& key, const std::vector<std::string>& def) const;
  // A table inside this one, read in turn through its own Params named `where`; empty if absent.
  Params get_table(const std::string& key, const std::string& where) const;

  // The value of `key` (recorded as known), or null: for checks the typed reads do not make.
  const toml::value* find(const std::string& key) const;
  // Throws InputError "<file>:<line>: <where> <key> <what>", the line being that of `at`.
  [[noreturn]] void fail(const toml::value& at, const std::string& key, const std::string& what) const;

  // Throws InputError for the first key, in file order, that no read asked for.
  void reject_unknown() const;
  // That key and its value, or null; and the keys read so far, sorted: "a, b, c".
  const std::pair<const std::string, toml::value>* first_unknown() const;
  std::string known_keys() const;
  const std::string& where() const { return where_; }

 private:
  toml::value table_;
  std::string where_;
  mutable std::set<std::string> used_;
};

}  // namespace pacer
