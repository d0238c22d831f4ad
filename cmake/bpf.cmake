# BPF toolchain: vmlinux.h from BTF, clang -target bpf objects and bpftool
# skeletons. vmlinux.h is generated, never edited, so CO-RE types always match
# the BTF the build was pointed at.
find_program(BPF_CLANG NAMES clang clang-14 REQUIRED)
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin REQUIRED)

set(BPF_GEN_DIR ${CMAKE_BINARY_DIR}/bpf)
file(MAKE_DIRECTORY ${BPF_GEN_DIR})

if(NOT EXISTS ${SCHEDIO_BTF})
  message(FATAL_ERROR "BTF file ${SCHEDIO_BTF} not found: pass -DSCHEDIO_BTF=FILE (a kernel with CONFIG_DEBUG_INFO_BTF)")
endif()
add_custom_command(
  OUTPUT ${BPF_GEN_DIR}/vmlinux.h
  COMMAND ${BPFTOOL} btf dump file ${SCHEDIO_BTF} format c > ${BPF_GEN_DIR}/vmlinux.h.tmp
  COMMAND ${CMAKE_COMMAND} -E rename ${BPF_GEN_DIR}/vmlinux.h.tmp ${BPF_GEN_DIR}/vmlinux.h
  DEPENDS ${SCHEDIO_BTF}
  COMMENT "Generating vmlinux.h from ${SCHEDIO_BTF}")
add_custom_target(schedio_vmlinux_h DEPENDS ${BPF_GEN_DIR}/vmlinux.h)

execute_process(COMMAND uname -m OUTPUT_VARIABLE BPF_UNAME_M OUTPUT_STRIP_TRAILING_WHITESPACE)
if(BPF_UNAME_M STREQUAL "x86_64")
  set(BPF_TARGET_ARCH x86)
elseif(BPF_UNAME_M STREQUAL "aarch64")
  set(BPF_TARGET_ARCH arm64)
else()
  set(BPF_TARGET_ARCH ${BPF_UNAME_M})
endif()

# schedio_bpf_gen_skeleton(OBJ NAME SKEL) generates the skeleton header SKEL
# for the BPF object OBJ (bpftool gen skeleton, written whole or not at all).
function(schedio_bpf_gen_skeleton obj name skel)
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${BPFTOOL} gen skeleton ${obj} name ${name} > ${skel}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
    DEPENDS ${obj}
    COMMENT "BPF skeleton ${name}")
endfunction()

# schedio_bpf_skeleton(NAME SRC) compiles SRC to NAME.bpf.o and generates
# NAME.skel.h in the build's bpf/ folder; target bpf_NAME builds both.
function(schedio_bpf_skeleton name src)
  set(obj ${BPF_GEN_DIR}/${name}.bpf.o)
  set(skel ${BPF_GEN_DIR}/${name}.skel.h)
  file(GLOB bpf_headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/bpf/*.h)
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${BPF_TARGET_ARCH}
            -Wall -Werror -Wno-unused-function
            -I${BPF_GEN_DIR} -I${CMAKE_SOURCE_DIR}/bpf
            -c ${src} -o ${obj}.tmp
    COMMAND ${BPFTOOL} gen object ${obj} ${obj}.tmp
    COMMAND ${CMAKE_COMMAND} -E remove ${obj}.tmp
    DEPENDS ${src} ${bpf_headers} ${BPF_GEN_DIR}/vmlinux.h
    COMMENT "BPF ${name}")
  schedio_bpf_gen_skeleton(${obj} ${name} ${skel})
  add_custom_target(bpf_${name} DEPENDS ${skel})
  # vmlinux.h is produced in the top-level directory: order by target so the
  # file exists before a subdirectory's rule asks for it.
  add_dependencies(bpf_${name} schedio_vmlinux_h)
endfunction()
