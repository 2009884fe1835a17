// Writes the frames of a video as our decoder gives them (media::FrameDecoder, what predict and
// track read videos with) as PNG files 000001.png, 000002.png, ..., for
// tools/parity/video_decode_predictions.py to compare with OpenCV's decode of the same file.
//
//     parity_dump_decoded_frames VIDEO OUT_DIR [--frames N]
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <opencv2/imgcodecs.hpp>

#include "yolo/media/frame_decoder.h"

int main(int argc, char** argv) {
  CLI::App app("Dump our decoder's frames of a video as PNG files");
  std::string video, out;
  int64_t frames = -1;
  app.add_option("video", video, "video file")->required();
  app.add_option("out", out, "folder for the PNG files")->required();
  app.add_option("--frames", frames, "stop after this many frames (all by default)");
  CLI11_PARSE(app, argc, argv);
  try {
    std::filesystem::create_directories(out);
    yolo::media::DecoderOptions options;
    options.source = video;
    yolo::media::FrameDecoder decoder(options);
    int64_t written = 0;
    while (frames < 0 || written < frames) {
      std::optional<yolo::media::DecodedFrame> frame = decoder.next();
      if (!frame) break;
      const std::string path = fmt::format("{}/{:06d}.png", out, ++written);
      if (!cv::imwrite(path, frame->image)) throw std::runtime_error("cannot write " + path);
    }
    std::cout << written << " frames\n";
  } catch (const std::exception& e) {
    std::cerr << "dump_decoded_frames: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
