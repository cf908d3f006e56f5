# cmake/install.cmake: `cmake --install` rules for C++ users: the public headers, the core library and a
# package config, so that `find_package(quadrants)` gives the imported target quadrants::core.
#
# A plain install uses the usual prefix layout (include/, lib/, lib/cmake/quadrants/). Inside a wheel
# (scikit-build-core sets SKBUILD) everything goes under the quadrants package folder instead, where
# quadrants.get_include() and quadrants.get_cmake_dir() find it. The generated target file locates
# everything relative to itself, so an install can be moved.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(SKBUILD)
  set(QD_INSTALL_INCLUDEDIR quadrants/include)
  set(QD_INSTALL_LIBDIR quadrants/lib)
else()
  set(QD_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR})
  set(QD_INSTALL_LIBDIR ${CMAKE_INSTALL_LIBDIR})
endif()
set(QD_INSTALL_CMAKEDIR ${QD_INSTALL_LIBDIR}/cmake/quadrants)

set_target_properties(quadrants_core PROPERTIES EXPORT_NAME core)
install(TARGETS quadrants_core EXPORT quadrantsTargets ARCHIVE DESTINATION ${QD_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${QD_INSTALL_INCLUDEDIR})
install(DIRECTORY include/quadrants DESTINATION ${QD_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h" PATTERN LICENSE)
install(EXPORT quadrantsTargets NAMESPACE quadrants:: DESTINATION ${QD_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/quadrantsConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/quadrantsConfig.cmake
                              INSTALL_DESTINATION ${QD_INSTALL_CMAKEDIR})
# 0.x releases may break the C++ API between minor versions, so only the same minor version matches.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/quadrantsConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/quadrantsConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/quadrantsConfigVersion.cmake
        DESTINATION ${QD_INSTALL_CMAKEDIR})
