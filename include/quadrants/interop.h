// include/quadrants/interop.h: DLPack export and import of quadrants arrays.
#pragma once

#include <memory>

#include "quadrants/array.h"
#include "quadrants/dlpack.h"

namespace qd {

// Exports share memory: the managed tensor holds a reference to the array's memory until its
// deleter runs, so it outlives qd.reset() and the Array object itself. The caller owns the result.
DLManagedTensorVersioned* export_dlpack_versioned(const Array& array);
DLManagedTensor* export_dlpack_legacy(const Array& array);

// Imports take ownership of the managed tensor: its deleter runs when the last user of the
// returned Array's memory is gone. Unsupported dtypes, lanes or ranks are a TypeError/ValueError,
// and the managed tensor is deleted before throwing.
std::shared_ptr<Array> import_dlpack_versioned(DLManagedTensorVersioned* managed);
std::shared_ptr<Array> import_dlpack_legacy(DLManagedTensor* managed);

// Describes a DLTensor as a view (no ownership); throws on unsupported dtypes or ranks.
ArrayView view_of_dltensor(const DLTensor& tensor, bool writable);

}  // namespace qd
