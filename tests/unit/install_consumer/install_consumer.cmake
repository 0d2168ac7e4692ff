# ctest: install the build into a scratch prefix, then configure, build and run a consumer that
# uses find_package(flashccl) -> flashccl::flashccl, and check the pkg-config file.
#   cmake -DBUILD_DIR= -DWORK_DIR= -DNCCL_INCLUDE_DIR= -DCUDA_INCLUDE_DIRS= -P install_consumer.cmake
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
run(${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR} -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${prefix} -DNCCL_INCLUDE_DIR=${NCCL_INCLUDE_DIR}
    "-DCUDA_INCLUDE_DIRS=${CUDA_INCLUDE_DIRS}")
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer)
message(STATUS "${run_output}")

# pkg-config must point into the prefix the files were installed to, not the configure-time
# CMAKE_INSTALL_PREFIX. CI installs pkg-config, so a missing one is a failure, not a skip.
find_program(PKG_CONFIG pkg-config REQUIRED)
file(REAL_PATH ${prefix} real_prefix)
foreach(query --libs --cflags)
  run(${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/lib/pkgconfig:${prefix}/lib64/pkgconfig
      ${PKG_CONFIG} ${query} flashccl)
  string(STRIP "${run_output}" flags)
  # pkg-config prints ${pcfiledir} as it found the file; resolve the flag's path before comparing.
  string(REGEX REPLACE "^-[LI]([^ ]+).*$" "\\1" flag_dir "${flags}")
  file(REAL_PATH ${flag_dir} real_flag_dir)
  if(query STREQUAL "--libs")
    set(expected_dir ${real_prefix}/lib)
    if(NOT flags MATCHES "-lflashccl")
      message(FATAL_ERROR "pkg-config --libs flashccl gave '${flags}': no -lflashccl")
    endif()
  else()
    set(expected_dir ${real_prefix}/include)
  endif()
  if(NOT real_flag_dir STREQUAL expected_dir AND NOT real_flag_dir STREQUAL "${expected_dir}64")
    message(FATAL_ERROR "pkg-config ${query} flashccl gave '${flags}' (${real_flag_dir}), not the "
                        "install prefix's ${expected_dir}")
  endif()
  message(STATUS "pkg-config ${query} flashccl: ${flags}")
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
