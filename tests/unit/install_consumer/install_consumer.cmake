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

find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  run(${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/lib/pkgconfig:${prefix}/lib64/pkgconfig
      ${PKG_CONFIG} --libs flashccl)
  if(NOT run_output MATCHES "-lflashccl")
    message(FATAL_ERROR "pkg-config --libs flashccl: ${run_output}")
  endif()
endif()
file(REMOVE_RECURSE ${WORK_DIR})
