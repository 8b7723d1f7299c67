// Connection strings carry passwords, and they end up in log lines, error messages and
// /v1/status; every place that shows one goes through mask_conninfo(). Written without libpq so
// the framework and its tests do not depend on it.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "pacer/config.hpp"

namespace pacer {

namespace {

constexpr std::string_view kMask = "***";

bool is_uri(std::string_view s) {
  return s.rfind("postgresql://", 0) == 0 || s.rfind("postgres://", 0) == 0;
}

bool iequals_at(std::string_view s, size_t at, std::string_view word) {
  if (at + word.size() > s.size()) return false;
  for (size_t i = 0; i < word.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[at + i])) != word[i]) return false;
  return true;
}

// A URI: the password sits between the first ':' of the userinfo and its last '@', and in a
// "password=" query parameter. Returns [begin, end) ranges to mask.
template <class F>
void uri_secrets(std::string_view s, F&& each) {
  const size_t scheme_end = s.find("://") + 3;
  size_t authority_end = s.find_first_of("/?", scheme_end);
  if (authority_end == std::string_view::npos) authority_end = s.size();
  const std::string_view authority = s.substr(scheme_end, authority_end - scheme_end);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {
    const size_t colon = authority.find(':');
    if (colon != std::string_view::npos && colon < at) each(scheme_end + colon + 1, scheme_end + at);
  }
  const size_t query = s.find('?', scheme_end);
  if (query == std::string_view::npos) return;
  size_t p = query + 1;
  while (p < s.size()) {
    size_t amp = s.find('&', p);
    if (amp == std::string_view::npos) amp = s.size();
    if (iequals_at(s, p, "password=")) each(p + 9, amp);
    p = amp + 1;
  }
}

// key=value: "password" '=' then a value, bare or single-quoted with backslash escapes.
template <class F>
void keyvalue_secrets(std::string_view s, F&& each) {
  for (size_t p = 0; p < s.size(); ++p) {
    if (!iequals_at(s, p, "password")) continue;
    if (p > 0 && !std::isspace(static_cast<unsigned char>(s[p - 1]))) continue;
    size_t q = p + 8;
    while (q < s.size() && std::isspace(static_cast<unsigned char>(s[q]))) ++q;
    if (q >= s.size() || s[q] != '=') continue;
    ++q;
    while (q < s.size() && std::isspace(static_cast<unsigned char>(s[q]))) ++q;
    size_t end = q;
    if (q < s.size() && s[q] == '\'') {
      end = q + 1;
      while (end < s.size() && s[end] != '\'') end += s[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, s.size());  // the closing quote (or the end, if it never closes)
    } else {
      while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
    }
    each(q, end);
    p = end;
  }
}

template <class F>
void secrets(std::string_view s, F&& each) {
  if (is_uri(s))
    uri_secrets(s, each);
  else
    keyvalue_secrets(s, each);
}

}  // namespace

std::string mask_conninfo(std::string_view conninfo) {
  std::string out;
  size_t copied = 0;
  secrets(conninfo, [&](size_t begin, size_t end) {
    if (begin < copied) return;
    out.append(conninfo.substr(copied, begin - copied));
    out.append(kMask);
    copied = end;
  });
  out.append(conninfo.substr(std::min(copied, conninfo.size())));
  return out;
}

std::string conninfo_password(std::string_view conninfo) {
  std::string found;
  secrets(conninfo, [&](size_t begin, size_t end) {
    std::string_view v = conninfo.substr(begin, end - begin);
    if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
    if (found.empty()) found = std::string(v);
  });
  return found;
}

std::string scrub_secret(std::string text, std::string_view secret) {
  if (secret.empty()) return text;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + kMask.size()))
    text.replace(at, secret.size(), kMask);
  return text;
}

}  // namespace pacer
