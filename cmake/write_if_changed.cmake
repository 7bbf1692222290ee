# fp_write_if_changed(PATH TEXT): write TEXT to PATH unless PATH already
# holds it, so a generated header that did not change recompiles nothing.
function(fp_write_if_changed path text)
  if(EXISTS "${path}")
    file(READ "${path}" old)
  else()
    set(old "")
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${path}" "${text}")
  endif()
endfunction()
