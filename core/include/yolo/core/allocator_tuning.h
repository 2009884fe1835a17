// The C allocator's settings for processes that allocate and free the same large tensors over
// and over (a training loop).
#pragma once

namespace yolo {

// Keeps freed memory in the process for reuse instead of returning it to the kernel: blocks up
// to 32 MB come from the heap rather than their own mmap, and the heap top is not trimmed. With
// glibc's defaults every training step unmaps and refaults its activations and gradients (10 % of
// a CPU training step went to page faults, measured on yolo26n at 320 px); with these, a step
// reuses the memory the previous one freed. The resident size stays at the loop's peak, which a
// training process reaches every step anyway. Returns false (and changes nothing) where the C
// library is not glibc.
bool keep_freed_memory_for_reuse();

}  // namespace yolo
