# SPDX-License-Identifier: GPL-3.0-or-later
# One golden test: run `CLI launch-config SCENARIO --target WHICH`, compare with EXPECTED byte for byte.
# Mismatch: write ACTUAL, show `diff -u EXPECTED ACTUAL`, fail. SHARDSCOPE_UPDATE_GOLDEN=1: rewrite EXPECTED instead.
# Then check the text is well formed for its language (JSON / Python / bash) when the checker is available.
foreach(v CLI CATALOG SCENARIO WHICH EXPECTED ACTUAL)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_golden.cmake: -D${v}=... is required")
  endif()
endforeach()

execute_process(
  COMMAND "${CLI}" launch-config "${SCENARIO}" --target "${WHICH}" --catalog-dir "${CATALOG}"
  OUTPUT_VARIABLE actual ERROR_VARIABLE stderr RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "shardscope-cli launch-config ${SCENARIO} --target ${WHICH} exited with ${rc}:\n${stderr}")
endif()
if(NOT stderr STREQUAL "")
  message(FATAL_ERROR "shardscope-cli printed to stderr for a valid scenario:\n${stderr}")
endif()

if("$ENV{SHARDSCOPE_UPDATE_GOLDEN}" STREQUAL "1")
  file(WRITE "${EXPECTED}" "${actual}")
  message(STATUS "re-baselined ${EXPECTED}")
elseif(NOT EXISTS "${EXPECTED}")
  file(WRITE "${ACTUAL}" "${actual}")
  message(FATAL_ERROR "no expected file ${EXPECTED}; the output is in ${ACTUAL}.\n"
                      "Review it, then run the test with SHARDSCOPE_UPDATE_GOLDEN=1 to adopt it.")
else()
  file(READ "${EXPECTED}" expected)
  if(NOT actual STREQUAL expected)
    file(WRITE "${ACTUAL}" "${actual}")
    if(DIFF)
      execute_process(COMMAND "${DIFF}" -u "${EXPECTED}" "${ACTUAL}")
    else()
      message("---- expected\n${expected}\n---- actual\n${actual}")
    endif()
    message(FATAL_ERROR "launch-config ${WHICH} for ${SCENARIO} differs from ${EXPECTED} (actual: ${ACTUAL}).\n"
                        "If the change is intended, re-run with SHARDSCOPE_UPDATE_GOLDEN=1.")
  endif()
  file(REMOVE "${ACTUAL}")
endif()

# Well-formedness of the generated text.
if(WHICH STREQUAL "deepspeed")
  string(JSON kind ERROR_VARIABLE json_error TYPE "${actual}")
  if(json_error OR NOT kind STREQUAL "OBJECT")
    message(FATAL_ERROR "DeepSpeed config is not a JSON object: ${json_error}")
  endif()
else()
  get_filename_component(dir "${ACTUAL}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  set(tmp "${ACTUAL}.check")
  file(WRITE "${tmp}" "${actual}")
  if(WHICH STREQUAL "fsdp" AND PYTHON3)
    execute_process(COMMAND "${PYTHON3}" -c "import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])" "${tmp}"
      RESULT_VARIABLE check_rc ERROR_VARIABLE check_err)
  elseif((WHICH STREQUAL "megatron" OR WHICH STREQUAL "nccl-env") AND BASH)
    execute_process(COMMAND "${BASH}" -n "${tmp}" RESULT_VARIABLE check_rc ERROR_VARIABLE check_err)
  else()
    set(check_rc 0)
  endif()
  file(REMOVE "${tmp}")
  if(NOT check_rc EQUAL 0)
    message(FATAL_ERROR "the ${WHICH} text does not parse:\n${check_err}")
  endif()
endif()
