// src/jit/link_tools.h: linking a GCC-compiled kernel object with the linker itself, not through the driver.
//
// `g++ -shared` links through collect2 and ld with the LTO plugin loaded and libm found through its linker
// script: 7 ms of a 45 ms cold compile, where ld given the files directly takes 2.5 ms. The files are the ones
// the driver would use, asked of it once per process and compiler (in the background, while the first kernel
// compiles).
#pragma once

#include <string>
#include <vector>

namespace qd::jit {

// Starts finding the linker, libm.so.6 and libgcc.a of GCC `command` (split into words) unless already started.
void find_link_tools(const std::vector<std::string>& command);

// The argv linking `object` into the shared library `library` the way `command -shared -nostdlib ... -lm -lgcc`
// would, with the linker called directly; empty when the tools were not all found (link through the driver).
// Waits for find_link_tools' answer.
std::vector<std::string> direct_link_argv(const std::vector<std::string>& command, const std::string& object,
                                          const std::string& library);

}  // namespace qd::jit
