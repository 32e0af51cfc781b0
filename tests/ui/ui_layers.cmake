# SPDX-License-Identifier: GPL-3.0-or-later
# The ui/ folders' one-way dependencies (issue 22 step 3), checked: a file in ui/<folder>/ may include headers of its
# own folder and of folders listed before it, never of one listed after it.
#   cmake -DUI_DIR=<source>/ui -P ui_layers.cmake
# The order, lowest first (the one place it is written down):
set(layers util help settings document explain charts views editors session calibrate analysis export launch compare teach)
# Upward includes allowed as exceptions: none (issue 22 step 3 removed the last; export knows charts only through
# ExportController::attachChart, which the window calls). None may be added.
set(known_upward)

if(NOT UI_DIR)
  message(FATAL_ERROR "ui_layers: set UI_DIR to the ui/ source folder")
endif()
file(GLOB folders RELATIVE "${UI_DIR}" "${UI_DIR}/*")
set(violations "")
foreach(folder IN LISTS folders)
  if(NOT IS_DIRECTORY "${UI_DIR}/${folder}")
    continue()
  endif()
  list(FIND layers "${folder}" own)
  if(own LESS 0)
    string(APPEND violations "  ui/${folder}/ is not in the layer list of ${CMAKE_CURRENT_LIST_FILE}\n")
    continue()
  endif()
  file(GLOB sources RELATIVE "${UI_DIR}" "${UI_DIR}/${folder}/*.cpp" "${UI_DIR}/${folder}/*.h")
  foreach(source IN LISTS sources)
    file(STRINGS "${UI_DIR}/${source}" includes REGEX "^#include \"[a-z_]+/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^#include \"([a-z_]+)/([^\"]+)\".*" "\\1" target "${line}")
      string(REGEX REPLACE "^#include \"([a-z_]+/[^\"]+)\".*" "\\1" header "${line}")
      list(FIND layers "${target}" other)
      if(other GREATER own)
        list(FIND known_upward "${source} -> ${header}" known)
        if(known LESS 0)
          string(APPEND violations "  ui/${source} includes ${header}: ${target}/ is above ${folder}/\n")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "ui_layers: upward includes (order: ${layers}):\n${violations}")
endif()
message(STATUS "ui_layers: every include in ui/ points down the layers (${layers})")
