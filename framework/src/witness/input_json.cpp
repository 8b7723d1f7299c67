// input.json as snarkjs reads it (pacer/witness/input_json.hpp). snarkjs parses the file with
// JSON.parse, then hands every value to BigInt() after flattening nested arrays; the rules below
// are those of JavaScript's BigInt() on a string, a number and a boolean.
#include "pacer/witness/input_json.hpp"

#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pacer/error.hpp"
#include "pacer/files.hpp"

namespace pacer::witness {

namespace {

using json = nlohmann::ordered_json;  // members in the document's order, as Object.keys gives them

struct TooDeep {};

// JavaScript's StrWhiteSpaceChar at position i of s: its length in bytes, or 0.
size_t js_blank_at(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
  // U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF in UTF-8.
  const auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  if (c == 0xC2 && at(1) == 0xA0) return 2;
  if (c == 0xE1 && at(1) == 0x9A && at(2) == 0x80) return 3;
  if (c == 0xE2 && at(1) == 0x80 && (at(2) <= 0x8A || at(2) == 0xA8 || at(2) == 0xA9 || at(2) == 0xAF) &&
      at(2) >= 0x80)
    return 3;
  if (c == 0xE2 && at(1) == 0x81 && at(2) == 0x9F) return 3;
  if (c == 0xE3 && at(1) == 0x80 && at(2) == 0x80) return 3;
  if (c == 0xEF && at(1) == 0xBB && at(2) == 0xBF) return 3;
  return 0;
}

std::string_view trim_js_blanks(std::string_view s) {
  size_t begin = 0;
  while (begin < s.size()) {
    const size_t n = js_blank_at(s, begin);
    if (n == 0) break;
    begin += n;
  }
  size_t end = s.size();
  // Blanks at the end: step back over whole characters (1 to 3 bytes) that are blanks.
  for (bool again = true; again && end > begin;) {
    again = false;
    for (size_t len = 1; len <= 3 && len <= end - begin; ++len)
      if (js_blank_at(s, end - len) == len) {
        end -= len;
        again = true;
        break;
      }
  }
  return s.substr(begin, end - begin);
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// BigInt(string): false when JavaScript would throw a SyntaxError.
bool bigint_from_string(std::string_view text, BigInt& out) {
  std::string_view s = trim_js_blanks(text);
  out = 0;
  if (s.empty()) return true;  // BigInt("") is 0n
  unsigned base = 10;
  bool negative = false;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s.remove_prefix(2);
  else if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'O')) base = 8, s.remove_prefix(2);
  else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, s.remove_prefix(2);
  else if (s[0] == '+' || s[0] == '-') negative = s[0] == '-', s.remove_prefix(1);
  if (s.empty()) return false;
  for (const char c : s) {
    const int d = digit_value(c);
    if (d >= static_cast<int>(base)) return false;
    out = out * base + d;
  }
  if (negative) out = -out;
  return true;
}

// BigInt(number): the exact value of an integral double.
BigInt bigint_from_double(double d) {
  int exponent = 0;
  const double fraction = std::frexp(std::fabs(d), &exponent);  // |d| = fraction * 2^exponent
  BigInt v = static_cast<int64_t>(std::ldexp(fraction, 53));     // exact: 53 significant bits
  exponent -= 53;
  if (exponent >= 0) v <<= exponent;
  else v >>= -exponent;  // no bits lost: d is integral
  return d < 0 ? BigInt(-v) : v;
}

class Reader {
 public:
  Reader(const std::string& source, const std::function<void(const std::string&)>& warn)
      : source_(source), warn_(warn) {}

  [[noreturn]] void refuse(const std::string& signal, const std::string& why) const {
    throw InputError(fmt::format("{}: signal '{}': {}", source_, printable_name(signal), why));
  }

  // Appends the value(s) of j, arrays flattened depth-first as snarkjs's flatArray does.
  void flatten(const json& j, const std::string& signal, std::vector<BigInt>& out) const {
    if (j.is_array()) {
      for (const json& element : j) flatten(element, signal, out);
      return;
    }
    out.push_back(value(j, signal, out.size()));
  }

 private:
  BigInt value(const json& j, const std::string& signal, size_t index) const {
    const auto where = [&] { return fmt::format("value {}", index); };
    switch (j.type()) {
      case json::value_t::boolean: return j.get<bool>() ? 1 : 0;
      case json::value_t::number_integer:
      case json::value_t::number_unsigned:
      case json::value_t::number_float: return number(j, signal, index);
      case json::value_t::string: {
        const auto& text = j.get_ref<const std::string&>();
        if (text.size() > kInputNumberMaxChars)
          refuse(signal, fmt::format("{} is a string of {} characters, more than the {} a number may have", where(),
                                     text.size(), kInputNumberMaxChars));
        BigInt v;
        if (!bigint_from_string(text, v))
          refuse(signal, fmt::format("{} \"{}\" is not a number (decimal, or 0x hexadecimal, in a string)", where(),
                                     printable_name(text)));
        return v;
      }
      case json::value_t::null: refuse(signal, where() + " is null, not a number");
      case json::value_t::object: refuse(signal, where() + " is an object, not a number");
      default: refuse(signal, where() + " is not a number");
    }
  }

  // A JSON number goes through a double, as JSON.parse reads it.
  BigInt number(const json& j, const std::string& signal, size_t index) const {
    const double d = j.get<double>();
    if (!std::isfinite(d) || std::trunc(d) != d)
      refuse(signal, fmt::format("value {} ({}) is not an integer", index, j.dump()));
    const BigInt v = bigint_from_double(d);
    constexpr double kExact = 9007199254740992.0;  // 2^53: every integer up to it is a double
    const bool lost = j.is_number_float() ? std::fabs(d) > kExact
                                          : (j.is_number_unsigned() ? BigInt(j.get<uint64_t>()) != v
                                                                    : BigInt(j.get<int64_t>()) != v);
    if (lost && warn_)
      warn_(fmt::format("{}: signal '{}': value {}: the JSON number {} is above 2^53 and reads as {}, as snarkjs reads "
                        "it; write it as a string to keep every digit",
                        source_, printable_name(signal), index, j.dump(), v.str()));
    return v;
  }

  const std::string& source_;
  const std::function<void(const std::string&)>& warn_;
};

}  // namespace

CircuitInputs parse_input_json(std::string_view text, const std::string& source,
                               const std::function<void(const std::string&)>& warn) {
  if (text.size() > kInputJsonMaxBytes)
    throw InputError(fmt::format("{}: {} bytes, more than the {} an input.json may have", source, text.size(),
                                 kInputJsonMaxBytes));
  json doc;
  try {
    doc = json::parse(text, [](int depth, json::parse_event_t, json&) {
      if (depth > static_cast<int>(kInputJsonMaxDepth)) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    throw InputError(fmt::format("{}: nested deeper than {} levels", source, kInputJsonMaxDepth));
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: not valid JSON ({})", source, e.what()));
  }
  if (!doc.is_object())
    throw InputError(fmt::format("{}: not a JSON object (input.json maps each input signal to its value)", source));
  CircuitInputs inputs;
  inputs.source = source;
  const Reader reader(source, warn);
  for (const auto& [name, value] : doc.items()) {
    InputSignal signal{name, {}};
    reader.flatten(value, name, signal.values);
    inputs.signals.push_back(std::move(signal));
  }
  return inputs;
}

CircuitInputs read_input_json(const std::string& path, const std::function<void(const std::string&)>& warn) {
  return parse_input_json(RegularFile(path).read_all(kInputJsonMaxBytes, "input.json"), path, warn);
}

uint64_t signal_hash(std::string_view name) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (const char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3ull;
  }
  return hash;
}

std::string printable_name(std::string_view name) {
  constexpr size_t kMax = 80;
  std::string out;
  for (size_t i = 0; i < name.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') out += static_cast<char>(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  if (name.size() > kMax) out += "...";
  return out;
}

bool reduce_to_field(const BigInt& value, const BigInt& p, bool strict, Fr256& out) {
  if (strict && (value < 0 || value >= p)) return false;
  BigInt v = value % p;  // the sign of the dividend, as in JavaScript
  if (v < 0) v += p;
  for (auto& limb : out) {
    limb = static_cast<uint64_t>(v & 0xFFFFFFFFFFFFFFFFull);
    v >>= 64;
  }
  return true;
}

}  // namespace pacer::witness
