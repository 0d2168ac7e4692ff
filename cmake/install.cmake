# Installation: the library, its header, a CMake package (find_package(flashccl) gives the
# imported target flashccl::flashccl) and a pkg-config file.
include(CMakePackageConfigHelpers)

install(TARGETS flashccl EXPORT flashcclTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
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
configure_file(cmake/flashccl.pc.in ${PROJECT_BINARY_DIR}/flashccl.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/flashccl.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# Shipped algorithms and topology tables, found at run time relative to the library.
install(DIRECTORY algorithms/ DESTINATION ${CMAKE_INSTALL_DATADIR}/flashccl/algorithms
  FILES_MATCHING PATTERN "*.xml")
install(DIRECTORY topologies/ DESTINATION ${CMAKE_INSTALL_DATADIR}/flashccl/topologies
  FILES_MATCHING PATTERN "*.xml")
