// tests/cuda_emulator/emulated_driver.h: what the emulated driver's core shares with its graphs (emulated_graph.cpp).
#pragma once

#include <cstddef>
#include <mutex>

// The one lock of the driver, held by every entry point.
std::recursive_mutex& emulated_driver_mutex();
// 0 when a call may go on: initialized, no sticky error, a current context; else the error to return.
int emulated_ready();
bool emulated_is_device_memory(unsigned long long address, size_t bytes);
int emulated_allocate(unsigned long long* pointer, size_t bytes);
int emulated_release(unsigned long long pointer);
// Device memory from the driver's own code (it is otherwise unreadable from the host).
void emulated_write_device(unsigned long long address, const void* data, size_t bytes);
void emulated_read_device(unsigned long long address, void* data, size_t bytes);
// Ends the work in progress with a sticky error, as a fault inside a kernel does.
void emulated_fail_launch(int error);
// Whether `function` came from cuModuleGetFunction (and whether its first parameter is the QdArgs by value).
bool emulated_is_function(void* function, bool* args_by_value);
// cuLaunchKernel's checks and run, with the lock held.
int emulated_launch(void* function, const unsigned grid[3], const unsigned block[3], unsigned shared_bytes,
                    void** params, void** extra);
// cudaGraphSetConditional from a kernel (emulated_graph.cpp); the driver hands it to each module it loads.
void emulated_set_conditional(unsigned long long handle, unsigned value);
