# Runs psched-place on one golden case and diffs its output against the expected file.
# -DTOOL= -DALLOCATOR= -DINPUT= -DEXPECTED=
# A generous solver limit: golden cases are small enough to be solved to optimality,
# so their answer does not depend on how loaded the machine is.
execute_process(COMMAND ${TOOL} --allocator ${ALLOCATOR} --time-limit 60 ${INPUT}
  OUTPUT_VARIABLE actual ERROR_VARIABLE errors RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "psched-place failed (${status}): ${errors}")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  get_filename_component(name ${EXPECTED} NAME_WE)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/golden-${ALLOCATOR}-${name}.actual)
  file(WRITE ${out} "${actual}")
  execute_process(COMMAND diff -u ${EXPECTED} ${out})
  message(FATAL_ERROR "golden decision differs from ${EXPECTED} (actual in ${out})")
endif()
