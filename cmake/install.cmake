# Installation: the library, its header, a CMake package (find_package(flashccl) gives the
# imported target flashccl::flashccl) and a pkg-config file.
#
# The same rules build the Python wheel. scikit-build-core (which defines SKBUILD) installs into
# site-packages/flashccl/, so lib/, bin/, include/ and share/flashccl/ land beside __init__.py and
# the library finds its data at <dir of libflashccl.so>/../share/flashccl in both layouts.
include(CMakePackageConfigHelpers)

if(SKBUILD)
  # A wheel cannot hold symlinks: libflashccl.so -> .so.0 -> .so.0.1.0 would become three full
  # copies of the library. In the wheel there is one file, libflashccl.so, which is what
  # LD_PRELOAD and -lflashccl name anyway.
  set_property(TARGET flashccl PROPERTY VERSION)
  set_property(TARGET flashccl PROPERTY SOVERSION)
endif()

install(TARGETS flashccl EXPORT flashcclTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The NCCL plugins (plugins/<name>/) install their libraries into the same lib/ from their own
# CMakeLists, e.g. lib/libnccl-net-softbond.so; the Python package looks for them there.
install(FILES include/flashccl/flashccl.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/flashccl)
install(EXPORT flashcclTargets NAMESPACE flashccl::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/flashccl)
configure_package_config_file(cmake/flashcclConfig.cmake.in
  ${PROJECT_BINARY_DIR}/flashcclConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/flashccl)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/flashcclConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/flashcclConfig.cmake
              ${PROJECT_BINARY_DIR}/flashcclConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/flashccl)
# The pkg-config file names the prefix relative to its own folder (${pcfiledir}), so it follows
# `cmake --install --prefix P` instead of the prefix known at configure time. The wheel has no
# use for one (nobody runs pkg-config against site-packages).
if(NOT SKBUILD)
  file(RELATIVE_PATH FLASHCCL_PC_PREFIX_FROM_PCFILEDIR
       /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  configure_file(cmake/flashccl.pc.in ${PROJECT_BINARY_DIR}/flashccl.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/flashccl.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
# Shipped algorithms and topology tables, found at run time relative to the library. Either folder
# may not exist yet (git keeps no empty folders); install() would fail on a missing one.
foreach(data algorithms topologies)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${data})
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${data}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/flashccl/${data}
      FILES_MATCHING PATTERN "*.xml")
  endif()
endforeach()
