#include "yolo/core/thread_name.h"

#if defined(__linux__)
#include <pthread.h>
#endif

namespace yolo {

void name_this_thread(const std::string& name) {
#if defined(__linux__)
  // The kernel's limit is 16 bytes with the terminating zero; longer names are refused, not cut.
  const std::string cut = name.substr(0, 15);
  pthread_setname_np(pthread_self(), cut.c_str());
#else
  (void)name;
#endif
}

}  // namespace yolo
