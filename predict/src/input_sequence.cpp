// The whole source as one sequence of frames: inputs in order, each read by its reader; an input
// that fails is recorded and skipped.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

#include "input_readers.h"
#include "source_paths.h"

namespace yolo {
namespace predict {
namespace {

class InputSequence : public FrameSource {
 public:
  InputSequence(ExpandedSource expanded, const SourceOptions& options)
      : inputs_(std::move(expanded.inputs)), options_(options) {
    for (auto& p : expanded.problems) record(std::move(p));
    for (const auto& n : expanded.notes) spdlog::info("{}", n);
  }

  std::optional<Frame> next() override {
    while (true) {
      if (!reader_) {
        if (next_input_ >= inputs_.size()) return std::nullopt;
        open(next_input_++);
        continue;
      }
      try {
        if (std::optional<Frame> f = reader_->next()) return f;
      } catch (const SourceError& e) {
        record(e.what());
      }
      reader_.reset();
    }
  }

  int inputs() const override { return static_cast<int>(inputs_.size()); }
  const std::vector<std::string>& problems() const override { return problems_; }

 private:
  void open(size_t i) {
    const SourceInput& input = inputs_[i];
    const InputPosition position{static_cast<int>(i) + 1, static_cast<int>(inputs_.size())};
    try {
      switch (input.origin) {
        case FrameOrigin::kImage:
          reader_ = make_image_reader(input, position);
          break;
        case FrameOrigin::kVideo:
          reader_ = make_decoder_reader(input, position, options_, FrameOrigin::kVideo);
          break;
        case FrameOrigin::kStream:
          reader_ = make_decoder_reader(input, position, options_, FrameOrigin::kStream);
          break;
      }
    } catch (const SourceError& e) {
      record(e.what());
    }
  }

  void record(std::string problem) {
    spdlog::warn("skipped: {}", problem);
    problems_.push_back(std::move(problem));
  }

  std::vector<SourceInput> inputs_;
  std::vector<std::string> problems_;
  SourceOptions options_;
  size_t next_input_ = 0;
  std::unique_ptr<InputReader> reader_;
};

}  // namespace
}  // namespace predict

std::unique_ptr<FrameSource> open_source(const std::string& source, const SourceOptions& options) {
  if (options.vid_stride < 1)
    throw std::invalid_argument(
        fmt::format("vid_stride={} is invalid: use 1 (every frame) or more", options.vid_stride));
  if (!(options.timeout_s > 0))
    throw std::invalid_argument(fmt::format(
        "stream_timeout={} is invalid: use a positive number of seconds", options.timeout_s));
  return std::make_unique<predict::InputSequence>(
      predict::expand_source(source, options.images_only), options);
}

}  // namespace yolo
