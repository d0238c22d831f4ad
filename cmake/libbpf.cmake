# libbpf.cmake - the pinned libbpf (>= 1.4, Debian 13's source, built by
# deploy/build-libbpf.sh into .cache/libbpf at configure time) that the CLI
# links statically as target schedio_libbpf_static: its headers come before
# the system's. Only the CLI and its tests use it; the agent stays on the
# system libbpf (PkgConfig::LIBBPF), which it interposes on (agent/vmlinux_btf.c).
# No target may link both.
set(SCHEDIO_LIBBPF_CACHE ${CMAKE_SOURCE_DIR}/.cache/libbpf CACHE PATH
  "Where deploy/build-libbpf.sh keeps the CLI's static libbpf")
execute_process(
  COMMAND ${CMAKE_SOURCE_DIR}/deploy/build-libbpf.sh ${SCHEDIO_LIBBPF_CACHE}
  OUTPUT_VARIABLE SCHEDIO_LIBBPF_PREFIX ERROR_VARIABLE libbpf_err RESULT_VARIABLE libbpf_rc
  OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 900)
if(NOT libbpf_rc EQUAL 0 OR NOT EXISTS ${SCHEDIO_LIBBPF_PREFIX}/lib/libbpf.a)
  message(FATAL_ERROR "the CLI's libbpf could not be built (deploy/build-libbpf.sh):\n${libbpf_err}")
endif()
message(STATUS "CLI libbpf: ${SCHEDIO_LIBBPF_PREFIX} (static)")
add_library(schedio_libbpf_static STATIC IMPORTED GLOBAL)
set_target_properties(schedio_libbpf_static PROPERTIES
  IMPORTED_LOCATION ${SCHEDIO_LIBBPF_PREFIX}/lib/libbpf.a
  INTERFACE_INCLUDE_DIRECTORIES ${SCHEDIO_LIBBPF_PREFIX}/include
  INTERFACE_LINK_LIBRARIES "PkgConfig::LIBELF;PkgConfig::ZLIB")
