# What `cmake --install` puts where (GNUInstallDirs, under
# CMAKE_INSTALL_PREFIX): the binary in bin/, the man pages (man/*.scd,
# turned into roff by scdoc) in share/man/man1/, the bash completion
# (`footprint completion bash`, run on the binary just built, so it is
# made from the option tables the binary parses with) in
# share/bash-completion/completions/, and README.md and docs/ in
# share/doc/footprint/, the layout README's links expect.
include(GNUInstallDirs)
find_program(SCDOC scdoc REQUIRED)

file(GLOB FP_MAN_SOURCES ${CMAKE_SOURCE_DIR}/man/*.1.scd)
set(FP_MAN_PAGES)
foreach(src ${FP_MAN_SOURCES})
  get_filename_component(page ${src} NAME)
  string(REGEX REPLACE "\\.scd$" "" page ${page})
  set(out ${CMAKE_BINARY_DIR}/man/${page})
  # scdoc dates the page from SOURCE_DATE_EPOCH when it is set
  # (scripts/package sets it: reproducible pages)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
    COMMAND sh -c "\"$0\" <\"$1\" >\"$2.tmp\" && mv \"$2.tmp\" \"$2\""
            ${SCDOC} ${src} ${out}
    DEPENDS ${src}
    COMMENT "man ${page}"
    VERBATIM)
  list(APPEND FP_MAN_PAGES ${out})
endforeach()
add_custom_target(fp_man ALL DEPENDS ${FP_MAN_PAGES})

set(FP_COMPLETION ${CMAKE_BINARY_DIR}/completion/footprint)
add_custom_command(
  OUTPUT ${FP_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/completion
  COMMAND sh -c "\"$0\" completion bash >\"$1.tmp\" && mv \"$1.tmp\" \"$1\""
          $<TARGET_FILE:footprint> ${FP_COMPLETION}
  DEPENDS footprint
  COMMENT "bash completion"
  VERBATIM)
add_custom_target(fp_completion ALL DEPENDS ${FP_COMPLETION})

install(TARGETS footprint RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${FP_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${FP_COMPLETION}
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB FP_DOCS ${CMAKE_SOURCE_DIR}/docs/*.md ${CMAKE_SOURCE_DIR}/docs/*.json)
install(FILES ${FP_DOCS} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
