# Runs a decision tool on one golden case and diffs its output against the expected file.
# Shared by the allocators' cases (psched-place) and the policies' (psched-cosched).
# -DTOOL= -DARGS= (a ;-list put before INPUT) -DINPUT= -DEXPECTED=
execute_process(COMMAND ${TOOL} ${ARGS} ${INPUT}
  OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${TOOL} failed (${status}): ${errors}")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  get_filename_component(kind ${EXPECTED} DIRECTORY)
  get_filename_component(kind ${kind} NAME)
  get_filename_component(name ${EXPECTED} NAME_WE)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/golden-${kind}-${name}.actual)
  file(WRITE ${out} "${actual}")
  execute_process(COMMAND diff -u ${EXPECTED} ${out})
  message(FATAL_ERROR "golden decision differs from ${EXPECTED} (actual in ${out})")
endif()
