#pragma once
// `pacer inspect FILE`: what a .zkey, .wtns or .r1cs file holds, for people.
#include <string>

namespace pacer {

// Detects the kind from the magic, reads and validates the file (a zkey or wtns as the prover
// would; of an r1cs the header only, so that huge circuits inspect quickly) and returns a
// multi-line summary: kind, version, curve, sizes and the section table.
// Throws InputError "<path>: not a zkey, wtns or r1cs file (magic 'xxxx')" for anything else.
std::string inspect_file(const std::string& path);

}  // namespace pacer
