#pragma once
// A circuit's input.json, read exactly as snarkjs reads it (docs/fullprove.md): one member per
// input signal of the main component, its value a number or a nested array of numbers (flattened
// in order). A number is a JSON number (through a double, as JavaScript parses it: a literal
// above 2^53 loses digits), a true/false (1/0), or a string that JavaScript's BigInt() takes:
// decimal with an optional sign, 0x/0o/0b, blanks around it; an empty string is 0. Values are
// exact integers here; they are reduced modulo the circuit's prime when they are bound to a
// generator (Generator::compute), negative ones too.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/multiprecision/cpp_int.hpp>

#include "pacer/types.hpp"

namespace pacer::witness {

using BigInt = boost::multiprecision::cpp_int;

struct InputSignal {
  std::string name;            // the member's name, as written
  std::vector<BigInt> values;  // flattened, in order
};

struct CircuitInputs {
  std::string source;  // the path (or "request body"), for messages
  std::vector<InputSignal> signals;  // in the document's order
};

// Limits on what is read: a larger or deeper document, or a longer number, is refused.
inline constexpr uint64_t kInputJsonMaxBytes = uint64_t(256) << 20;
inline constexpr unsigned kInputJsonMaxDepth = 64;
inline constexpr size_t kInputNumberMaxChars = 4096;

// Throws InputError naming `source` (malformed JSON, not an object, too large or deep) or naming
// the source and the signal (a value that is not a number). `warn` receives one line per JSON
// number that lost digits on its way through a double (as it does in snarkjs).
CircuitInputs parse_input_json(std::string_view text, const std::string& source,
                               const std::function<void(const std::string&)>& warn = {});
CircuitInputs read_input_json(const std::string& path, const std::function<void(const std::string&)>& warn = {});

// How circom's witness generators know a signal: 64-bit FNV-1a of its name.
uint64_t signal_hash(std::string_view name);

// A signal name fit for a one-line message: unprintable bytes as \xNN, cut after 80 characters.
std::string printable_name(std::string_view name);

// value mod p in [0, p) as 4 little-endian limbs (p < 2^256). strict: a value outside [0, p) is
// refused instead (the message says why); returns false then.
bool reduce_to_field(const BigInt& value, const BigInt& p, bool strict, Fr256& out);

}  // namespace pacer::witness
