# tutti_compiler_fast_link(target): link the big static-LLVM executables with
# lld (much faster, less memory than ld.bfd) and drop unused sections.
include_guard(GLOBAL)
include(CheckCXXSourceCompiles)
if(NOT DEFINED TUTTI_HAVE_LLD)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fuse-ld=lld)
  check_cxx_source_compiles("int main(){return 0;}" TUTTI_HAVE_LLD)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
endif()
function(tutti_compiler_fast_link target)
  if(TUTTI_HAVE_LLD)
    target_link_options(${target} PRIVATE -fuse-ld=lld -Wl,--gc-sections)
  endif()
endfunction()
