# SPDX-License-Identifier: GPL-3.0-or-later
# Warnings are set per target, never globally.
function(shardscope_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow)
endfunction()
