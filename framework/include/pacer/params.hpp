#pragma once
// A plugin's [<kind>.params] TOML table. Every read records the key; after the factory returns
// the host calls reject_unknown(), so a misspelt key is an error naming the key and its line.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <toml.hpp>

namespace pacer {

class Params {
 public:
  Params() = default;
  // where: the table's name as written, e.g. "[backend.params]"; errors get "file:line: " in front,
  // taken from the values themselves. A non-table value throws InputError.
  Params(toml::value table, std::string where);

  bool has(const std::string& key) const;
  // Typed read with a default; a value of the wrong type throws InputError naming key and line.
  int64_t get_int(const std::string& key, int64_t def) const;
  double get_double(const std::string& key, double def) const;
  bool get_bool(const std::string& key, bool def) const;
  std::string get_string(const std::string& key, const std::string& def) const;
  // An array of integers, e.g. devices = [0, 1]; anything else in it is an InputError.
  std::vector<int64_t> get_int_array(const std::string& key, const std::vector<int64_t>& def) const;

  // Throws InputError for the first key no get_* asked for.
  void reject_unknown() const;
  const std::string& where() const { return where_; }

 private:
  const toml::value* find(const std::string& key) const;
  toml::value table_;
  std::string where_;
  mutable std::set<std::string> used_;
};

}  // namespace pacer
