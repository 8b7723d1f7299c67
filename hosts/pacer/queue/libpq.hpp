#pragma once
// libpq, loaded the first time the PostgreSQL queue is used instead of at process start: linked,
// it and the ~20 libraries it pulls in (TLS, Kerberos, LDAP) cost every `pacer prove` a few
// milliseconds of dynamic linking, a tenth of a one-shot proof at 2^13.
#include <libpq-fe.h>

namespace pacer::host::queue {

// The libpq functions the queue calls, resolved from libpq.so.5.
struct Libpq {
#define PACER_LIBPQ_FUNCTIONS(X)                                                                                       \
  X(PQclear) X(PQntuples) X(PQgetisnull) X(PQgetvalue) X(PQgetlength) X(PQconninfoParse) X(PQconninfoFree)          \
  X(PQfreemem) X(PQfinish) X(PQconnectdbParams) X(PQstatus) X(PQerrorMessage) X(PQexecParams) X(PQexec)             \
  X(PQresultStatus) X(PQresultErrorField) X(PQresultErrorMessage) X(PQnotifies) X(PQsocket) X(PQconsumeInput)
#define PACER_LIBPQ_MEMBER(name) decltype(&::name) name = nullptr;
  PACER_LIBPQ_FUNCTIONS(PACER_LIBPQ_MEMBER)
#undef PACER_LIBPQ_MEMBER
};

// Loads libpq once (thread-safe) and returns its functions; InputError naming the library and the
// package when it cannot be loaded or lacks a function.
const Libpq& libpq();

}  // namespace pacer::host::queue
