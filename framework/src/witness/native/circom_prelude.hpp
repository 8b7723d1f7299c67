// Included (-include) before every source of circom's C++ generator when it is compiled into a
// library. The generated code reports through the process's standard streams and ends it on
// errors; inside a host, what it prints belongs to the witness call that runs it, and an error
// must end that call only. So, once the real declarations are in:
//  - cout (where failed asserts are described) and printf (circom's log()) write to the current
//    call's buffers (circom_glue.cpp), which become its error message and log lines;
//  - exit() throws to the call's boundary.
// assert() throws too: see assert.h beside this file.
//
// The replacements live in namespace std with a using-declaration outside it, so that std::cout,
// a cout found through "using namespace std" and a plain printf all name the same function.
#ifndef PACER_CIRCOM_PRELUDE_HPP
#define PACER_CIRCOM_PRELUDE_HPP

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <ostream>

namespace std {
ostream& pacer_circom_cout();
int pacer_circom_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] void pacer_circom_exit(int code);
}  // namespace std
using std::pacer_circom_cout;
using std::pacer_circom_exit;
using std::pacer_circom_printf;

#define cout pacer_circom_cout()
#define printf pacer_circom_printf
#define exit pacer_circom_exit

#endif
