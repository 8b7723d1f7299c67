#pragma once
// Whether a library the process is about to load (a plugin, a compiled witness generator) could
// have been put or changed there by another user of the machine: code that user would then run
// inside the prover.
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>

namespace pacer {

// Why another user could have swapped the library `file`, or nothing:
//  * the file (its real path), its real folder or any of `folders` (the folder it was found in; a
//    cache's folders down to it) belongs to a user other than this process's or root, or is
//    writable by every user (the sticky bit does not stop an added library that is found first);
//  * an ancestor of its real folder is writable by every user without the sticky bit (anyone could
//    rename the folders below it).
// Group write is left to whoever granted it. A path that cannot be resolved or stat'ed is no
// reason here: opening the library fails with its own.
std::optional<std::string> replaceable_by_others(const std::filesystem::path& file,
                                                 std::initializer_list<std::filesystem::path> folders);

}  // namespace pacer
