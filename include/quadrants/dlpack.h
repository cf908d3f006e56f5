// include/quadrants/dlpack.h: the DLPack 1.3 C ABI, from the DLPack project's own header.
//
// vendor/dlpack/dlpack.h is the official dlpack.h of DLPack 1.3 unmodified (github.com/dmlc/dlpack,
// include/dlpack/dlpack.h; taken from the copy apache-tvm-ffi 0.1.15 ships in 3rdparty/dlpack), under
// the Apache-2.0 license in vendor/dlpack/LICENSE. Being the official header, with its include guard
// DLPACK_DLPACK_H_, it can be included next to another framework's copy (ATen/dlpack.h is one):
// whichever comes first defines the types once. Our code needs DLPack 1.2 or later (the C exchange API).
#pragma once

#include "quadrants/vendor/dlpack/dlpack.h"

#if DLPACK_MAJOR_VERSION != 1 || DLPACK_MINOR_VERSION < 2
#error "quadrants needs DLPack 1.2 or later; an older dlpack.h was included before quadrants/dlpack.h"
#endif
