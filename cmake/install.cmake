# `cmake --install build` puts the programs in <prefix>/bin (pschedd beside the launchers,
# which start it from their own directory) and, when help2man is there, man pages made
# from their --help in <prefix>/share/man/man1, so that `man psched-exec` works.
install(TARGETS pschedd psched-exec psched-ctl psched-alloc psched-config psched-place
                psched-sim psched-djsb
        RUNTIME DESTINATION bin COMPONENT programs)

find_program(PSCHED_HELP2MAN help2man)
if(NOT PSCHED_HELP2MAN)
  message(STATUS "help2man not found: no man pages (scripts/install-deps.sh installs it)")
  return()
endif()
# name -> the one line under NAME
set(psched_man_psched-exec "run an MPI session (N ranks x T threads) in the current allocation")
set(psched_man_psched-ctl "show, watch (top) and steer the sessions of the current allocation")
set(psched_man_psched-alloc "run a command inside an emulated N-node allocation on this host")
set(psched_man_psched-config "check, show and resolve psched's admin configuration")
set(psched_man_psched-djsb "measure how well each co-scheduling policy serves interactive analyses")
set(psched_man_psched-sim "replay cluster workloads through psched's scheduler on a virtual clock")
set(psched_man_psched-place "show where an allocator would place sessions in a JSON snapshot")
set(psched_man_pages "")
foreach(program psched-exec psched-ctl psched-alloc psched-config psched-djsb psched-sim
                psched-place)
  set(page ${CMAKE_BINARY_DIR}/man/${program}.1)
  # An empty config: the page shows the built-in defaults, not the build machine's.
  add_custom_command(OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND ${CMAKE_COMMAND} -E env PSCHED_CONF=/dev/null
            ${PSCHED_HELP2MAN} --no-info --no-discard-stderr
            --version-string=${PROJECT_VERSION} --name=${psched_man_${program}}
            --output=${page} $<TARGET_FILE:${program}>
    DEPENDS ${program}
    COMMENT "man page ${program}.1"
    VERBATIM)
  list(APPEND psched_man_pages ${page})
endforeach()
add_custom_target(man_pages ALL DEPENDS ${psched_man_pages})
install(FILES ${psched_man_pages} DESTINATION share/man/man1 COMPONENT man)

# After an install of the man component, `man psched-exec` shows the help's usage line.
add_test(NAME install.man_psched_exec
  COMMAND sh -c "rm -rf \"$1\" && \"$0\" --install \"$2\" --component man --prefix \"$1\" >/dev/null && MANPATH=\"$1/share/man\" MANWIDTH=100 man -P cat psched-exec"
          ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}/man-install-test ${CMAKE_BINARY_DIR})
set_tests_properties(install.man_psched_exec PROPERTIES
  PASS_REGULAR_EXPRESSION "psched-exec \\[OPTIONS\\] COMMAND \\[ARGS\\.\\.\\.\\].*--policy NAME.*overbook"
  LABELS unit)
