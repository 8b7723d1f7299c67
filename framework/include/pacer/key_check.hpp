#pragma once
// Subgroup membership of every point of a proving key, checked at load ([host]
// check_key_subgroups). read_zkey checks the six header points this way and every backend checks
// that the section points are on the curve; a point on the curve but outside the prime-order
// subgroup passes both, and then yields a proof that does not verify (or, with a key built to do
// so, leaks through a small-order component). The checks are subgroup.hpp's endomorphism tests,
// spread over the CPU pool.
#include "pacer/formats/zkey.hpp"

namespace pacer {

class ThreadPool;

// IC and sections 5-9 (A, B1, B2, C, H): every point canonical, on its curve (the identity
// allowed: wires a matrix never uses have it) and in its prime-order subgroup. Throws InputError
// naming the key, the section and the point's index.
void check_key_subgroups(const ProvingKey& key, ThreadPool& pool);

}  // namespace pacer
