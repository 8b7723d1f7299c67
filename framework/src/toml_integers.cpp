// Integers of a parsed config against the text they were written as. toml11 3.7 reads a decimal,
// octal or hex integer through an istringstream and keeps what it gives on overflow (the largest
// int64), and sums binary ones past 64 bits: a value beyond 64 bits arrives changed, silently. So
// every integer is read again from its own text and refused where it does not fit.
#include <charconv>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/printable.hpp"
#include "toml_detail.hpp"

namespace pacer::detail {

namespace {

// Whether the literal (TOML syntax: sign, 0x/0o/0b prefix, underscores) is an int64.
bool fits_int64(std::string literal) {
  std::erase(literal, '_');
  std::string_view digits = literal;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b')) {
    base = digits[1] == 'x' ? 16 : digits[1] == 'o' ? 8 : 2;
    digits.remove_prefix(2);
  }
  uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return false;
  return magnitude <= (negative ? uint64_t(1) << 63 : uint64_t(INT64_MAX));
}

void check(const toml::value& value) {
  if (value.is_integer()) {
    const auto* region = toml::detail::get_region(value);
    if (!region) return;
    const std::string literal = region->str();
    if (!fits_int64(literal))
      throw InputError(fmt::format("{}the integer {} does not fit in 64 bits (-9223372036854775808 to "
                                   "9223372036854775807)",
                                   toml_line_prefix(value), printable(literal, 40)));
  } else if (value.is_array()) {
    for (const auto& item : value.as_array()) check(item);
  } else if (value.is_table()) {
    for (const auto& [key, item] : value.as_table()) check(item);
  }
}

}  // namespace

void check_config_integers(const toml::value& root) { check(root); }

}  // namespace pacer::detail
