// A config's text against the limits of docs/config.md, before toml11 parses it. toml11 3.7
// recurses once per nesting level (a few thousand nested arrays overflow the stack), and its time
// grows with the number of parts of a dotted key squared and with the values on a line times the
// line's length (measured: a 200 KB line of 100,000 values took 8 s, an inline table of 10,000
// keys 31 s). Bounding the file, its lines, the nesting and the key parts bounds all of them.
//
// The scan is a small TOML lexer: it knows strings (basic, literal, multi-line) and comments, so
// that brackets and dots inside them do not count.
#include <fmt/format.h>

#include "pacer/error.hpp"
#include "toml_detail.hpp"

namespace pacer::detail {

namespace {

class LimitScanner {
 public:
  LimitScanner(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  void run() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        newline();
        continue;
      }
      switch (c) {
        case '#': skip_comment(); continue;
        case '"':
          if (starts_with("\"\"\"")) multi_line_string('"', /*escapes=*/true);
          else single_line_string('"', /*escapes=*/true);
          continue;
        case '\'':
          if (starts_with("'''")) multi_line_string('\'', /*escapes=*/false);
          else single_line_string('\'', /*escapes=*/false);
          continue;
        case '[':
        case '{':
          if (++depth_ > kConfigMaxDepth)
            fail(fmt::format("arrays and tables nested more than {} deep (flatten the structure)", kConfigMaxDepth));
          key_dots_ = 0;
          break;
        case ']':
        case '}':
          if (depth_ > 0) --depth_;
          key_dots_ = 0;
          break;
        case '=':
        case ',': key_dots_ = 0; break;
        case '.':
          // A float or a time has one dot; more than a few between two delimiters is a dotted key.
          if (++key_dots_ >= kConfigMaxKeyParts)
            fail(fmt::format("a dotted key of more than {} parts (use fewer levels of tables)", kConfigMaxKeyParts));
          break;
        default: break;
      }
      advance();
    }
  }

 private:
  bool starts_with(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(fmt::format("{}:{}: {}; see the limits in docs/config.md", file_, line_, what));
  }

  void advance() {
    ++pos_;
    if (++line_bytes_ > kConfigMaxLineBytes)
      fail(fmt::format("line longer than {} bytes (split it: arrays may span lines)", kConfigMaxLineBytes));
  }

  void newline() {
    ++pos_;
    ++line_;
    line_bytes_ = 0;
    key_dots_ = 0;
  }

  void skip_comment() {
    while (pos_ < text_.size() && text_[pos_] != '\n') advance();
  }

  // From the opening quote to the closing one or the end of the line (unterminated: toml11 says so).
  void single_line_string(char quote, bool escapes) {
    advance();
    while (pos_ < text_.size() && text_[pos_] != '\n') {
      const char c = text_[pos_];
      advance();
      if (c == quote) return;
      if (escapes && c == '\\' && pos_ < text_.size() && text_[pos_] != '\n') advance();
    }
  }

  // From the opening triple quote past the closing one, which may be followed by up to two more
  // quotes that belong to the content ("""a""""" is a"").
  void multi_line_string(char quote, bool escapes) {
    const std::string triple(3, quote);
    for (int i = 0; i < 3; ++i) advance();
    while (pos_ < text_.size()) {
      if (starts_with(triple)) {
        for (int i = 0; i < 3; ++i) advance();
        for (int extra = 0; extra < 2 && pos_ < text_.size() && text_[pos_] == quote; ++extra) advance();
        return;
      }
      const char c = text_[pos_];
      if (c == '\n') {
        newline();
        continue;
      }
      advance();
      if (escapes && c == '\\' && pos_ < text_.size()) {
        if (text_[pos_] == '\n') newline();
        else advance();
      }
    }
  }

  std::string_view text_;
  const std::string& file_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t line_bytes_ = 0;
  size_t depth_ = 0;
  size_t key_dots_ = 0;
};

// TOML is UTF-8, and toml11 3.7 reads past its buffer on some invalid sequences (fuzz_config
// found '\x97' in a literal string): every byte sequence is checked first. Strict: no overlong
// forms, no surrogates, nothing above U+10FFFF.
void check_utf8(std::string_view text, const std::string& file) {
  size_t line = 1;
  for (size_t i = 0; i < text.size();) {
    const auto byte = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
    const unsigned b0 = byte(0);
    size_t len = 0;
    unsigned lo = 0x80, hi = 0xbf;  // allowed range of the second byte
    if (b0 < 0x80) len = 1;
    else if (b0 >= 0xc2 && b0 <= 0xdf) len = 2;
    else if (b0 >= 0xe0 && b0 <= 0xef) len = 3, lo = b0 == 0xe0 ? 0xa0 : 0x80, hi = b0 == 0xed ? 0x9f : 0xbf;
    else if (b0 >= 0xf0 && b0 <= 0xf4) len = 4, lo = b0 == 0xf0 ? 0x90 : 0x80, hi = b0 == 0xf4 ? 0x8f : 0xbf;
    bool ok = len > 0 && (len == 1 || (byte(1) >= lo && byte(1) <= hi));
    for (size_t k = 2; ok && k < len; ++k) ok = byte(k) >= 0x80 && byte(k) <= 0xbf;
    if (!ok)
      throw InputError(fmt::format("{}:{}: not UTF-8 (byte 0x{:02x}); a config is UTF-8 text, see the limits in "
                                   "docs/config.md",
                                   file, line, b0));
    if (b0 == '\n') ++line;
    i += len;
  }
}

}  // namespace

void check_config_limits(std::string_view text, const std::string& file) {
  check_utf8(text, file);
  LimitScanner(text, file).run();
}

}  // namespace pacer::detail
