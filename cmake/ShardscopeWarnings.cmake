# SPDX-License-Identifier: GPL-3.0-or-later
# Warnings are set per target, never globally. With SHARDSCOPE_WERROR (on in the dev and release presets) they are
# errors under g++, except GCC 12's -Wrestrict false positive inside std::string's operator+ (GCC bug 105329).
option(SHARDSCOPE_WERROR "Treat warnings in our code as errors (g++)" OFF)
function(shardscope_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow)
  if(SHARDSCOPE_WERROR AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -Werror -Wno-error=restrict)
  endif()
endfunction()
