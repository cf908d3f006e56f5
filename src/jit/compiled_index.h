// src/jit/compiled_index.h: the compiled-kernel index, from a kernel's IR text to its cached library and the
// description compile_kernel returns, so that a warm process skips parsing, passes, C++ generation and hashing the
// generated source (about 0.3 ms for a small kernel, 45 ms for one of Genesis' large ones).
#pragma once

#include <memory>
#include <string>

#include "quadrants/jit.h"

namespace qd::jit {

// The index key of a compile whose in-process key is `compiled_key` (IR text, compiler settings, tier mode), or ""
// when the index is not used: the disk cache is off, there is no compiler, or IR dumps or verification are on
// (the passes' side effects, which an index hit would skip).
std::string index_key(const std::string& compiled_key);

// The kernel the index holds under `key`, its library loaded and verified as the disk cache loads any; null on a
// miss, an entry that does not verify or parse, or a library gone from the cache (the caller compiles as before).
std::shared_ptr<CompiledKernel> load_indexed(const std::string& key);

// Records `kernel`, whose optimized library the disk cache holds under `library_key`, under `key`.
void store_indexed(const std::string& key, const CompiledKernel& kernel, const std::string& library_key);

// How many compiles this process served from the index (for tests).
int index_hits();

// Counts a compile answered by a cache of compiled kernels (this process's table, the index, the CUDA image cache)
// instead of building anything; compiled_reuses() is the count so far (upstream's fe_ll_cache_observations).
void note_compiled_reuse();
int compiled_reuses();

}  // namespace qd::jit
