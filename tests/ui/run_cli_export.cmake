# SPDX-License-Identifier: GPL-3.0-or-later
# cli_export: runs `shardscope-cli export` with no display (QT_QPA_PLATFORM, DISPLAY and WAYLAND_DISPLAY unset) for
# every chart and format and checks the files: PNG signature and size, SVG root element, PDF header and one page;
# the report's pages; a bad option is exit code 2; 1200 DPI gives its pixels; a PNG over the pixel budget is exit 2
# and an --out that cannot be written exit 1 naming it (issue 12); `evaluate` works with a Qt platform that does not exist, so it
# never starts Qt; the strategy variants' step totals are not 0 s. Variables: CLI, SCENARIO, OUT.
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
set(_env ${CMAKE_COMMAND} -E env --unset=QT_QPA_PLATFORM --unset=DISPLAY --unset=WAYLAND_DISPLAY)

function(check_run)
  execute_process(COMMAND ${_env} ${CLI} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "shardscope-cli ${ARGN}: exit ${rc}\n${out}\n${err}")
  endif()
  string(FIND "${err}" "QStandardPaths" _noise)
  string(REGEX MATCH "(QPainter|QCustomPlot|QFont|qt\\.qpa|[Ww]arning)[^\n]*" _warning "${err}")
  if(_warning)
    message(FATAL_ERROR "shardscope-cli ${ARGN}: unexpected message: ${_warning}")
  endif()
endfunction()

# The strategy variants' bars and totals (results without terms) are drawn: the CLI has no catalog resources, so
# the charts' reference terms come from its catalog files (a step of "0 s" in every row before).
check_run(export "${SCENARIO}" --chart time --out "${OUT}/variants.svg" --width 900 --height 560)
file(READ "${OUT}/variants.svg" _svg)
string(REGEX MATCHALL ">0 s[^<]*<" _zero "${_svg}")
string(REGEX MATCHALL ">[1-9][0-9.]* s[^<]*<" _totals "${_svg}")
list(LENGTH _totals _n)
if(_zero OR _n LESS 7)
  message(FATAL_ERROR "time chart: step totals ${_totals}, zero ${_zero}")
endif()

# Every --chart name of shared/DESIGN.md: the scenario's charts and the analyses (their panes' opening settings)
foreach(chart memory strategy communication time timeline search sweep sizing rank-map)
  foreach(fmt png svg pdf)
    set(f "${OUT}/${chart}.${fmt}")
    check_run(export "${SCENARIO}" --chart ${chart} --out "${f}" --width 900 --height 560)
    if(NOT EXISTS "${f}")
      message(FATAL_ERROR "${f} was not written")
    endif()
    file(SIZE "${f}" size)
    if(size LESS 1000)
      message(FATAL_ERROR "${f} is only ${size} bytes")
    endif()
    if(fmt STREQUAL "png")
      file(READ "${f}" head LIMIT 24 HEX)
      if(NOT head MATCHES "^89504e470d0a1a0a0000000d49484452000003840000")  # signature, IHDR, width 900
        message(FATAL_ERROR "${f}: not a 900-pixel-wide PNG (${head})")
      endif()
    elseif(fmt STREQUAL "svg")
      file(READ "${f}" text)
      if(NOT text MATCHES "<svg" OR NOT text MATCHES "</svg>")
        message(FATAL_ERROR "${f}: no <svg> root")
      endif()
    else()
      file(READ "${f}" head LIMIT 5 HEX)
      if(NOT head STREQUAL "255044462d")  # %PDF-
        message(FATAL_ERROR "${f}: no %PDF- header")
      endif()
      file(STRINGS "${f}" pages REGEX "/Type /Page[^s]|/Type /Page$")
      list(LENGTH pages n)
      if(NOT n EQUAL 1)
        message(FATAL_ERROR "${f}: ${n} pages, expected 1")
      endif()
    endif()
  endforeach()
endforeach()

# --dpi doubles the PNG's pixels
check_run(export "${SCENARIO}" --chart memory --out "${OUT}/memory-192.png" --width 900 --height 560 --dpi 192)
file(READ "${OUT}/memory-192.png" head LIMIT 24 HEX)
if(NOT head MATCHES "0000070800000460$")  # 1800 x 1120
  message(FATAL_ERROR "memory-192.png: not 1800 x 1120 (${head})")
endif()

# 1200 DPI, the highest: 12.5 image pixels per logical pixel (400 x 300 -> 5000 x 3750), drawn without warnings
check_run(export "${SCENARIO}" --chart memory --out "${OUT}/memory-1200.png" --width 400 --height 300 --dpi 1200)
file(READ "${OUT}/memory-1200.png" head LIMIT 24 HEX)
if(NOT head MATCHES "0000138800000ea6$")  # 5000 x 3750
  message(FATAL_ERROR "memory-1200.png: not 5000 x 3750 (${head})")
endif()

# Over the pixel budget (20000 x 20000 at 300 DPI = 3.9 gigapixels): invalid input (2), refused before drawing,
# naming the limit and the options to change; no file
execute_process(COMMAND ${_env} ${CLI} export "${SCENARIO}" --chart memory --out "${OUT}/huge.png" --width 20000 --height 20000
                        --dpi 300 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "limit of 100 megapixels" OR NOT err MATCHES "--dpi" OR EXISTS "${OUT}/huge.png")
  message(FATAL_ERROR "export 20000 x 20000 at 300 dpi: exit ${rc}, expected 2 naming the limit\n${err}")
endif()

# An --out that cannot be written (no such folder; a file where a folder should be): exit 1, the path and the reason
file(WRITE "${OUT}/plain-file" "x")
foreach(bad "${OUT}/no-such-folder/x.png:No such file or directory" "${OUT}/plain-file/x.pdf:Not a directory")
  string(REGEX REPLACE ":[^:]*$" "" path "${bad}")
  string(REGEX REPLACE "^.*:" "" reason "${bad}")
  execute_process(COMMAND ${_env} ${CLI} export "${SCENARIO}" --chart time --out "${path}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(FIND "${err}" "shardscope-cli: export: ${path}: " at)
  string(FIND "${err}" "${reason}" why)
  if(NOT rc EQUAL 1 OR NOT at EQUAL 0 OR why EQUAL -1 OR err MATCHES "internal error")
    message(FATAL_ERROR "export --out ${path}: exit ${rc}, expected 1 with the path and '${reason}'\n${err}")
  endif()
endforeach()

# The report: title page, memory and step-time terms (a table that does not fit below the other starts a page of its
# own), the nine charts (the five of the scenario and search, sweep, sizing, rank map), collectives
check_run(export "${SCENARIO}" --chart report --out "${OUT}/report.pdf")
file(STRINGS "${OUT}/report.pdf" pages REGEX "/Type /Page[^s]|/Type /Page$")
list(LENGTH pages n)
if(n LESS 12 OR n GREATER 14)
  message(FATAL_ERROR "report.pdf: ${n} pages, expected 12 to 14")
endif()

# A bad chart name is invalid input (2), naming the option and every allowed value; the comparison's charts need
# pins and exist in the window only
foreach(bad pie compare)
  execute_process(COMMAND ${_env} ${CLI} export "${SCENARIO}" --chart ${bad} --out "${OUT}/x.png" RESULT_VARIABLE rc
                  OUTPUT_QUIET ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "--chart must be one of memory\\|strategy\\|communication\\|time\\|timeline\\|search\\|sweep\\|sizing\\|rank-map\\|report, not '${bad}'")
    message(FATAL_ERROR "export --chart ${bad}: exit ${rc}, expected 2 naming the allowed values\n${err}")
  endif()
endforeach()

# evaluate never constructs Qt: it works even when the requested platform does not exist.
execute_process(COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=no-such-platform --unset=DISPLAY ${CLI} evaluate "${SCENARIO}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "shardscope.result/1")
  message(FATAL_ERROR "evaluate with QT_QPA_PLATFORM=no-such-platform: exit ${rc}\n${err}")
endif()
message(STATUS "cli_export: 27 charts, the report and the checks passed")
