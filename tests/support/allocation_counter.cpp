// Counting wrappers around glibc's allocator (allocation_counter.h). Symbols defined in the
// executable come first in the dynamic linker's lookup, so every library's malloc lands here.
#include "allocation_counter.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t n, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* p);
}

namespace {

struct Slot {
  std::atomic<pid_t> tid{0};
  std::atomic<uint64_t> count{0}, bytes{0};
  std::atomic<bool> attribute{false};     // look at the caller of each allocation
  std::atomic<uint64_t> by_gstreamer{0};  // ... made inside GLib or GStreamer
};
constexpr int kSlots = 8192;  // threads over the process' life; later ones go uncounted
Slot slots[kSlots];
std::atomic<int> slots_used{0};
// Trivially initialised: reading it never calls the allocator (no TLS constructor).
thread_local Slot* this_thread_slot = nullptr;

Slot* own_slot() {
  if (!this_thread_slot) {
    const int i = slots_used.fetch_add(1, std::memory_order_relaxed);
    if (i >= kSlots) return nullptr;
    slots[i].tid.store(static_cast<pid_t>(syscall(SYS_gettid)), std::memory_order_relaxed);
    this_thread_slot = &slots[i];
  }
  return this_thread_slot;
}

std::atomic<pid_t> traced_tid{0};
thread_local bool tracing_now = false;  // the stack printer's own allocations are not traced

bool starts_with(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

// Whether the code that asked for this allocation is GLib's or GStreamer's: the nearest caller
// outside the allocator itself (this executable's wrappers, the C and C++ runtimes).
bool made_by_gstreamer() {
  void* frames[32];
  const int n = backtrace(frames, 32);
  for (int i = 1; i < n; ++i) {
    Dl_info info;
    if (!dladdr(frames[i], &info) || !info.dli_fname) continue;
    const char* slash = std::strrchr(info.dli_fname, '/');
    const char* file = slash ? slash + 1 : info.dli_fname;
    if (starts_with(file, "libc.so") || starts_with(file, "libstdc++") ||
        starts_with(file, "libgcc") || !std::strchr(file, '.'))  // the executable
      continue;
    return starts_with(file, "libglib-") || starts_with(file, "libgobject-") ||
           starts_with(file, "libgstreamer-") || starts_with(file, "libgstbase-") ||
           starts_with(file, "libgstvideo-");
  }
  return false;
}

void count(size_t size) {
  Slot* s = own_slot();
  if (!s) return;
  s->count.fetch_add(1, std::memory_order_relaxed);
  s->bytes.fetch_add(size, std::memory_order_relaxed);
  bool by_gstreamer = false;
  if (s->attribute.load(std::memory_order_relaxed) && !tracing_now) {
    tracing_now = true;
    by_gstreamer = made_by_gstreamer();
    if (by_gstreamer) s->by_gstreamer.fetch_add(1, std::memory_order_relaxed);
    tracing_now = false;
  }
  // Traced: the stacks of the allocations that count (GLib's and GStreamer's are left out).
  const pid_t traced = traced_tid.load(std::memory_order_relaxed);
  if (traced != 0 && traced == s->tid.load(std::memory_order_relaxed) && !tracing_now &&
      !by_gstreamer) {
    tracing_now = true;
    void* frames[24];
    const int n = backtrace(frames, 24);
    dprintf(2, "--- allocation of %zu bytes\n", size);
    backtrace_symbols_fd(frames, n, 2);
    tracing_now = false;
  }
}

std::string thread_name(pid_t tid) {
  std::ifstream comm("/proc/self/task/" + std::to_string(tid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

}  // namespace

extern "C" {
void* malloc(size_t size) {
  count(size);
  return __libc_malloc(size);
}
void* calloc(size_t n, size_t size) {
  count(n * size);
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t size) {
  count(size);
  return __libc_realloc(p, size);
}
void free(void* p) {
  __libc_free(p);
}
void* memalign(size_t alignment, size_t size) {
  count(size);
  return __libc_memalign(alignment, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  count(size);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  count(size);
  void* p = __libc_memalign(alignment, size);
  if (!p && size) return ENOMEM;
  *out = p;
  return 0;
}
void* valloc(size_t size) {
  count(size);
  return __libc_memalign(static_cast<size_t>(sysconf(_SC_PAGESIZE)), size);
}
}

namespace yolo::testing {

void attribute_allocations_of(pid_t tid) {
  const int used = std::min(slots_used.load(), kSlots);
  for (int i = 0; i < used; ++i)
    if (slots[i].tid.load() == tid) slots[i].attribute.store(true);
}

void trace_allocations_of(pid_t tid) {
  traced_tid.store(tid);
}

uint64_t allocations_of_this_thread() {
  Slot* s = own_slot();
  return s ? s->count.load(std::memory_order_relaxed) : 0;
}

std::vector<ThreadAllocations> allocations_by_thread() {
  const int used = std::min(slots_used.load(), kSlots);
  std::vector<ThreadAllocations> all;
  all.reserve(static_cast<size_t>(used));
  for (int i = 0; i < used; ++i) {
    ThreadAllocations t;
    t.tid = slots[i].tid.load();
    t.count = slots[i].count.load();
    t.bytes = slots[i].bytes.load();
    t.by_gstreamer = slots[i].by_gstreamer.load();
    all.push_back(t);
  }
  for (ThreadAllocations& t : all) t.name = thread_name(t.tid);
  return all;
}

ThreadAllocations allocations_between(const std::vector<ThreadAllocations>& before,
                                      const std::vector<ThreadAllocations>& after,
                                      const std::string& prefix) {
  ThreadAllocations sum;
  sum.name = prefix;
  for (const ThreadAllocations& a : after) {
    if (a.name.rfind(prefix, 0) != 0) continue;
    ThreadAllocations zero;
    const ThreadAllocations* b = &zero;
    for (const ThreadAllocations& t : before)
      if (t.tid == a.tid) b = &t;
    sum.count += a.count - b->count;
    sum.bytes += a.bytes - b->bytes;
    sum.by_gstreamer += a.by_gstreamer - b->by_gstreamer;
  }
  return sum;
}

}  // namespace yolo::testing
