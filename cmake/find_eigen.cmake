# cmake/find_eigen.cmake: finds Eigen (header-only), which the sparse direct solver (src/linalg/) is built on,
# and sets QD_EIGEN_INCLUDE_DIR.
#
# First wherever CMake looks by itself: CMAKE_PREFIX_PATH, or a system install such as Debian's libeigen3-dev
# (scripts/setup.sh installs it). Then PyPI's cmeel-eigen in the Python that builds us, a build requirement in
# pyproject.toml, so `pip install` of the sdist needs no system package: cmeel installs Eigen3Config.cmake
# under site-packages/cmeel.prefix, where CMake does not search, and `python -m cmeel cmake` lists those prefixes.
# Only the include directory is used (no imported target in our link interface), so quadrantsConfig.cmake and
# the C++ users of quadrants::core never need Eigen: no public header includes it.
find_package(Eigen3 3.3 CONFIG QUIET)
if(NOT TARGET Eigen3::Eigen)
  find_package(Python COMPONENTS Interpreter QUIET)
  if(Python_Interpreter_FOUND)
    execute_process(COMMAND "${Python_EXECUTABLE}" -m cmeel cmake OUTPUT_VARIABLE QD_CMEEL_PREFIXES
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    string(REPLACE ":" ";" QD_CMEEL_PREFIXES "${QD_CMEEL_PREFIXES}")
    find_package(Eigen3 3.3 CONFIG QUIET PATHS ${QD_CMEEL_PREFIXES} NO_DEFAULT_PATH)
  endif()
endif()
if(NOT TARGET Eigen3::Eigen)
  message(FATAL_ERROR "quadrants needs Eigen 3.3 or newer (header-only) for its sparse solver: install Debian's "
                      "libeigen3-dev (scripts/setup.sh does), or `pip install cmeel-eigen` into the Python that "
                      "builds quadrants, or point CMAKE_PREFIX_PATH at an Eigen install.")
endif()
get_target_property(QD_EIGEN_INCLUDE_DIR Eigen3::Eigen INTERFACE_INCLUDE_DIRECTORIES)
message(STATUS "Eigen ${Eigen3_VERSION}: ${QD_EIGEN_INCLUDE_DIR}")
