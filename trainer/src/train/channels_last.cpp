#include "train/channels_last.h"

#include <torch/torch.h>

namespace yolo {

void weights_to_channels_last(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (torch::Tensor p : module.parameters(/*recurse=*/true))
    if (p.dim() == 4) p.set_data(p.data().contiguous(torch::MemoryFormat::ChannelsLast));
  for (torch::Tensor b : module.buffers(/*recurse=*/true))
    if (b.dim() == 4) b.set_data(b.data().contiguous(torch::MemoryFormat::ChannelsLast));
}

torch::Tensor to_channels_last(const torch::Tensor& images) {
  return images.dim() == 4 ? images.contiguous(torch::MemoryFormat::ChannelsLast) : images;
}

}  // namespace yolo
