// Heap allocations counted per thread, for tests that assert a steady state allocates nothing.
//
// Linking allocation_counter.cpp into a test executable replaces the C allocator's entry points
// (malloc, calloc, realloc, the aligned variants; operator new, LibTorch's CPU allocator, GLib
// and OpenCV all end there) with counting wrappers around glibc's own. Each thread counts in a
// slot of its own, so counting takes no lock and allocates nothing. Frees are not counted: the
// question is whether a path asks the allocator for memory, not whether it balances.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace yolo::testing {

struct ThreadAllocations {
  pid_t tid = 0;
  std::string name;  // the kernel's thread name ("" once the thread has ended)
  uint64_t count = 0, bytes = 0;
  // Of `count`, those asked for by GLib or GStreamer code (counted only for threads given to
  // attribute_allocations_of()).
  uint64_t by_gstreamer = 0;
};

// Allocations by the calling thread so far (reads its own slot: allocates nothing).
uint64_t allocations_of_this_thread();

// Every thread that has allocated so far, with its name now. Allocates (call it outside the
// window being measured).
std::vector<ThreadAllocations> allocations_by_thread();

// What threads named `prefix`... allocated between two snapshots, summed.
ThreadAllocations allocations_between(const std::vector<ThreadAllocations>& before,
                                      const std::vector<ThreadAllocations>& after,
                                      const std::string& prefix);

// From now on, each allocation by thread `tid` is attributed to GLib/GStreamer or not by its
// nearest caller outside the allocator (a call stack per allocation: slow, for a few threads).
void attribute_allocations_of(pid_t tid);

// Debugging aid: while set, every allocation by thread `tid` (0: none) prints its call stack to
// stderr, to find which code a failing count comes from (but those attributed to GLib or
// GStreamer, where the thread is attributed).
void trace_allocations_of(pid_t tid);

}  // namespace yolo::testing
