#pragma once
// The [[keys]] a daemon or a worker serves: each key read (and made resident on the backend when
// this process proves with it), and its witness generator compiled (or found in the cache) before
// the first request, so that no proof waits for a compiler.
#include <string>
#include <vector>

#include "common.hpp"
#include "serve/api.hpp"

namespace pacer::host {

// resident = false: only the key's header is read (curve, sizes: what checks a submission); a
// front that leaves proving to workers holds no key on the backend.
std::vector<serve::ServedKey> load_served_keys(Engine& engine, bool resident, const std::string& command);

}  // namespace pacer::host
