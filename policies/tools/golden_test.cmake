# Runs psched-cosched on one golden script and diffs its output against the expected file.
# -DTOOL= -DINPUT= -DEXPECTED=
execute_process(COMMAND ${TOOL} ${INPUT}
  OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "psched-cosched failed (${status}): ${errors}")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  get_filename_component(policy ${EXPECTED} DIRECTORY)
  get_filename_component(policy ${policy} NAME)
  get_filename_component(name ${EXPECTED} NAME_WE)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/golden-${policy}-${name}.actual)
  file(WRITE ${out} "${actual}")
  execute_process(COMMAND diff -u ${EXPECTED} ${out})
  message(FATAL_ERROR "golden plan differs from ${EXPECTED} (actual in ${out})")
endif()
