#include "pacer/elf_exports.hpp"

#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "pacer/error.hpp"
#include "pacer/files.hpp"

namespace pacer {

namespace {

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#else
#error "elf_exports: name this machine's e_machine"
#endif

// Far above any real library's symbol and string tables (libstdc++: under 1 MB each).
constexpr uint64_t kMaxTableBytes = uint64_t(64) << 20;

class ElfFile {
 public:
  explicit ElfFile(const std::string& path) : file_(path) {}

  [[noreturn]] void refuse(const std::string& what) const {
    throw InputError(fmt::format("{}: {}", file_.path(), what));
  }

  // `bytes` at `offset`, which must lie inside the file.
  std::string read(uint64_t offset, uint64_t bytes, const char* what) const {
    if (bytes > kMaxTableBytes) refuse(fmt::format("its {} claims {} bytes", what, bytes));
    if (offset > file_.size() || bytes > file_.size() - offset)
      refuse(fmt::format("its {} ({} bytes at {}) lies outside the file of {} bytes", what, bytes, offset,
                         file_.size()));
    std::string out(bytes, '\0');
    size_t done = 0;
    while (done < bytes) {
      const ssize_t n = ::pread(file_.fd(), out.data() + done, bytes - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) refuse(fmt::format("cannot read its {}: {}", what, n < 0 ? std::strerror(errno) : "end of file"));
      done += static_cast<size_t>(n);
    }
    return out;
  }

  uint64_t size() const { return file_.size(); }

  template <class T>
  T at(const std::string& bytes, size_t index) const {
    T value;
    std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
    return value;
  }

 private:
  RegularFile file_;
};

}  // namespace

namespace {

// Calls visit(name, symbol, section headers) for each defined symbol of the dynamic symbol table
// with global or weak binding and default visibility, after checking the file's headers.
template <class Visit>
void visit_exports(const ElfFile& elf, const Visit& visit) {
  if (elf.read(0, std::min<uint64_t>(elf.size(), SELFMAG), "start").compare(0, SELFMAG, ELFMAG) != 0)
    elf.refuse("not an ELF file");
  const std::string header_bytes = elf.read(0, sizeof(Elf64_Ehdr), "ELF header");
  const auto header = elf.at<Elf64_Ehdr>(header_bytes, 0);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB ||
      header.e_machine != kMachine)
    elf.refuse("an ELF file for another machine");
  if (header.e_type != ET_DYN) elf.refuse("an ELF file that is not a shared library");
  if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shnum == 0)
    elf.refuse("no section headers to find its symbols in");

  const std::string sections = elf.read(header.e_shoff, uint64_t(header.e_shnum) * sizeof(Elf64_Shdr),
                                        "section headers");
  for (size_t s = 0; s < header.e_shnum; ++s) {
    const auto symtab = elf.at<Elf64_Shdr>(sections, s);
    if (symtab.sh_type != SHT_DYNSYM) continue;
    if (symtab.sh_entsize != sizeof(Elf64_Sym) || symtab.sh_link >= header.e_shnum)
      elf.refuse("a malformed dynamic symbol table");
    const auto strtab = elf.at<Elf64_Shdr>(sections, symtab.sh_link);
    if (strtab.sh_type != SHT_STRTAB) elf.refuse("a dynamic symbol table whose names are not a string table");
    const std::string symbols = elf.read(symtab.sh_offset, symtab.sh_size - symtab.sh_size % sizeof(Elf64_Sym),
                                         "dynamic symbol table");
    const std::string names = elf.read(strtab.sh_offset, strtab.sh_size, "dynamic string table");
    for (size_t i = 0; i < symbols.size() / sizeof(Elf64_Sym); ++i) {
      const auto sym = elf.at<Elf64_Sym>(symbols, i);
      const unsigned binding = ELF64_ST_BIND(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || (binding != STB_GLOBAL && binding != STB_WEAK) ||
          ELF64_ST_VISIBILITY(sym.st_other) != STV_DEFAULT || sym.st_name >= names.size())
        continue;
      const size_t end = names.find('\0', sym.st_name);
      if (end == std::string::npos) continue;  // a name that runs off its table: not a name
      visit(std::string_view(names.data() + sym.st_name, end - sym.st_name), sym, header, sections);
    }
  }
}

}  // namespace

std::vector<std::string> elf_exports_among(const std::string& path, const std::vector<std::string_view>& wanted) {
  const ElfFile elf(path);
  std::vector<std::string> found;
  visit_exports(elf, [&](std::string_view name, const Elf64_Sym&, const Elf64_Ehdr&, const std::string&) {
    if (std::find(wanted.begin(), wanted.end(), name) != wanted.end() &&
        std::find(found.begin(), found.end(), name) == found.end())
      found.emplace_back(name);
  });
  return found;
}

std::optional<std::string> elf_exported_bytes(const std::string& path, std::string_view symbol, size_t max_bytes) {
  const ElfFile elf(path);
  std::optional<std::string> bytes;
  visit_exports(elf, [&](std::string_view name, const Elf64_Sym& sym, const Elf64_Ehdr& header,
                         const std::string& sections) {
    if (bytes || name != symbol) return;
    if (sym.st_shndx >= header.e_shnum) return;  // absolute or common: no bytes in a section
    const auto section = elf.at<Elf64_Shdr>(sections, sym.st_shndx);
    if (section.sh_type == SHT_NOBITS) return;  // zero-filled at load: nothing in the file
    if (sym.st_value < section.sh_addr || sym.st_value - section.sh_addr > section.sh_size ||
        sym.st_size > section.sh_size - (sym.st_value - section.sh_addr))
      elf.refuse(fmt::format("its symbol {} lies outside its section", symbol));
    const uint64_t within = sym.st_value - section.sh_addr;
    if (section.sh_offset > elf.size() || within > elf.size() - section.sh_offset)
      elf.refuse(fmt::format("its symbol {} lies outside the file", symbol));
    bytes = elf.read(section.sh_offset + within, std::min<uint64_t>(sym.st_size, max_bytes), "exported data");
  });
  return bytes;
}

}  // namespace pacer
