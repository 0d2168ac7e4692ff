# nvml.h for NVML's types and function signatures. NVML itself is never linked: topology detection
# dlopen's libnvidia-ml.so.1 at run time (src/topo/nvml_loader.h). A full CUDA toolkit ships the
# header; a toolkit assembled from NVIDIA's pip wheels does not, and then the nvidia-nvml-dev wheel
# provides it under nvidia/cu<N>/include: in .deps/python of the checkout (where
# tools/setup/install_dependencies.sh puts it) or in the Python packages (it is a build requirement
# of the Python wheel, so pip's build environment has it).
#
# Defines the INTERFACE target flashccl_nvml_header.
file(GLOB _nvml_checkout_dirs ${PROJECT_SOURCE_DIR}/.deps/python/nvidia/*/include)
set(_nvml_hints ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_LIBRARY_ROOT}/include ${_nvml_checkout_dirs})
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # Every folder on the interpreter's path: inside pip's isolated build environment of the wheel
  # that includes the build requirements.
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c
      "import glob, os, sys; print(';'.join(sorted({os.path.dirname(h) for p in sys.path for h in glob.glob(os.path.join(p, 'nvidia', '*', 'include', 'nvml.h'))})))"
    OUTPUT_VARIABLE _nvml_python_dirs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  list(APPEND _nvml_hints ${_nvml_python_dirs})
endif()
find_path(NVML_INCLUDE_DIR nvml.h HINTS ${_nvml_hints})
if(NOT NVML_INCLUDE_DIR)
  message(FATAL_ERROR
    "nvml.h not found (looked in the CUDA toolkit, ${CUDAToolkit_INCLUDE_DIRS}, in "
    "${PROJECT_SOURCE_DIR}/.deps/python and in the Python packages of ${Python3_EXECUTABLE}). Run "
    "tools/setup/install_dependencies.sh, install NVIDIA's cuda-nvml-dev package, or pass "
    "-DNVML_INCLUDE_DIR=<folder of nvml.h>.")
endif()
message(STATUS "nvml.h in ${NVML_INCLUDE_DIR}")
add_library(flashccl_nvml_header INTERFACE)
target_include_directories(flashccl_nvml_header SYSTEM INTERFACE ${NVML_INCLUDE_DIR})
