# pacer::kCxxPluginAbi, the number of the C++ plugin interface (PACER_PLUGIN, pacer/plugin.hpp: backends,
# and our own allocators and schedulers), derived from the headers such a plugin compiles against, so
# that an interface change cannot ship under an old number. The C ABI (pacer/plugin_abi.h) has a
# version written by hand instead: PACER_PLUGIN_ABI_MAJOR/MINOR. Those headers: pacer/plugin.hpp (the
# plugin interfaces), the framework services a plugin calls into (kCxxPluginAbiRoots below), and every "pacer/..." header
# these include, transitively. The number is the first 32 bits of the SHA-256 of their code
# (comments and runs of blank space taken out, so that editing a comment keeps the number).
#
#   pacer_cxx_plugin_abi(<include dir> <var for the number> <var for the headers' paths>)
#
# As a script, for tests/plugins/abi_from_headers.sh:
#   cmake -DINCLUDE_DIR=<dir> -P cmake/PluginAbi.cmake     prints the number
cmake_minimum_required(VERSION 3.25)

# The services: exceptions thrown across the boundary, the host's thread pool, allocator-backed
# arrays, the schedulers' bandwidth gate, the logger.
set(kCxxPluginAbiRoots pacer/plugin.hpp pacer/error.hpp pacer/thread_pool.hpp pacer/buffer.hpp pacer/membw_gate.hpp
    pacer/logging.hpp)

function(pacer_cxx_plugin_abi include_dir out_abi out_files)
  set(todo ${kCxxPluginAbiRoots})
  set(seen "")
  while(todo)
    list(POP_FRONT todo header)
    # cxx_plugin_abi.hpp is generated from this very hash: it cannot be part of it.
    if(header IN_LIST seen OR header STREQUAL "pacer/cxx_plugin_abi.hpp")
      continue()
    endif()
    if(NOT EXISTS "${include_dir}/${header}")
      message(FATAL_ERROR "plugin ABI: ${include_dir}/${header} (included by a plugin header) does not exist")
    endif()
    list(APPEND seen "${header}")
    file(STRINGS "${include_dir}/${header}" includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"pacer/[^\"]+\"")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^[^\"]*\"(pacer/[^\"]+)\".*$" "\\1" included "${line}")
      list(APPEND todo "${included}")
    endforeach()
  endwhile()
  list(SORT seen)
  set(code "")
  set(paths "")
  foreach(header IN LISTS seen)
    file(READ "${include_dir}/${header}" text)
    string(REGEX REPLACE "//[^\n]*" "" text "${text}")
    string(REGEX REPLACE "[ \t\r\n]+" " " text "${text}")
    string(APPEND code "${header}:${text}\n")
    list(APPEND paths "${include_dir}/${header}")
  endforeach()
  string(SHA256 hash "${code}")
  string(SUBSTRING "${hash}" 0 8 first32)
  set(${out_abi} "0x${first32}" PARENT_SCOPE)
  set(${out_files} "${paths}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND DEFINED INCLUDE_DIR)
  pacer_cxx_plugin_abi("${INCLUDE_DIR}" abi headers)
  message(NOTICE "${abi}")
endif()
