// Names for the threads the product starts, so that `top -H`, `perf` and gdb show what each one
// does (and tests can tell them apart).
#pragma once

#include <string>

namespace yolo {

// Names the calling thread. Linux keeps 15 bytes; a longer name is cut there. A no-op where the
// platform cannot name threads.
void name_this_thread(const std::string& name);

}  // namespace yolo
