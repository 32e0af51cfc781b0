# SPDX-License-Identifier: GPL-3.0-or-later
# `CLI launch-config SCENARIO --target WHICH` must exit 2 (invalid input) and say EXPECT_STDERR on stderr.
execute_process(
  COMMAND "${CLI}" launch-config "${SCENARIO}" --target "${WHICH}" --catalog-dir "${CATALOG}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "expected exit code 2, got ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
string(FIND "${err}" "${EXPECT_STDERR}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "stderr does not contain '${EXPECT_STDERR}':\n${err}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "nothing should be printed on stdout for invalid input, got:\n${out}")
endif()
