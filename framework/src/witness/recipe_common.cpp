// What the recipes of witness generators share (recipes.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/witness/input_json.hpp"
#include "recipes.hpp"
#include "witness_native_sources.hpp"

namespace pacer::witness::recipe_detail {

namespace fs = std::filesystem;

void write_file(const fs::path& file, std::string_view bytes) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw FailedError(fmt::format("cannot write {}: {}", file.string(), std::strerror(errno)));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = errno;
      ::close(fd);
      throw FailedError(fmt::format("cannot write {}: {}", file.string(), std::strerror(e)));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) throw FailedError(fmt::format("cannot write {}: {}", file.string(), std::strerror(errno)));
}

void write_glue(const fs::path& dir) {
  for (const NativeSource& source : kNativeSources) write_file(dir / source.name, source.text);
}

std::string glue_and_version() {
  std::string out = fmt::format("pacer {}\n", PACER_FRAMEWORK_VERSION);
  for (const NativeSource& source : kNativeSources)
    out += fmt::format("{} {}\n{}\n", source.name, source.text.size(), source.text);
  return out;
}

std::string first_error(const std::string& output) {
  std::istringstream lines(output);
  std::string line, first, last;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (first.empty() && line.find("error") != std::string::npos) first = line;
    last = line;
  }
  const std::string& chosen = first.empty() ? last : first;
  std::string out;
  for (const char c : chosen.substr(0, 300)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) ? ' ' : c;
  return out.empty() ? "(no output)" : out;
}

}  // namespace pacer::witness::recipe_detail
