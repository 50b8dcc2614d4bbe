# interpose_no_driver_calls.cmake - fails if an entry-point file calls a driver.
#
# Issue 16: interpose/ validates and translates; driver work belongs in runtime/. A raw
# icd(...) call or an include of icd.h in interpose/*.cpp or api.h breaks that split.
# Run: cmake -DINTERPOSE_DIR=<src>/interpose -P interpose_no_driver_calls.cmake
file(GLOB sources "${INTERPOSE_DIR}/*.cpp" "${INTERPOSE_DIR}/api.h")
if(NOT sources)
  message(FATAL_ERROR "no sources under '${INTERPOSE_DIR}'")
endif()
set(bad "")
foreach(f ${sources})
  file(STRINGS "${f}" lines REGEX "(^|[^A-Za-z0-9_])icd\\(|#include[ \t]*[\"<]icd\\.h[\">]")
  foreach(l ${lines})
    string(APPEND bad "\n  ${f}: ${l}")
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "driver calls in interpose/ (move them to runtime/):${bad}")
endif()
list(LENGTH sources n)
message(STATUS "interpose/: no driver calls in ${n} files")
