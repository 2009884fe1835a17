// What `yolo-trainer predict` reads: the `source=` key turned into a sequence of frames
// (Ultralytics' data/loaders.py: LoadImagesAndVideos, LoadStreams).
//
// A source is one of
//   image    a.jpg (bmp, jpeg, jpg, mpo, png, tif, tiff, webp, pfm, dng, heic)
//   folder   dir/            its image and video files, sorted, not recursive
//   glob     dir/*.jpg       POSIX glob(3) (`*`, `?`), sorted
//   list     paths.txt       one path (or folder, or glob) per line; relative lines are tried
//                            against the working folder first, then the list's own folder
//   video    v.mp4 (asf, avi, gif, m4v, mkv, mov, mpeg, mpg, ts, wmv, webm), or an http(s)
//            URL whose path ends in one of these: every frame is decoded
//   stream   rtsp://, rtmp://, http://, https://, tcp:// URIs, or a webcam number (0 is
//            /dev/video0): live, frames may be dropped (stream_buffer=False)
// Folders, globs and lists expand to files; each file is then read as an image or a video by
// its extension. Videos and streams are decoded through GStreamer (uridecodebin), images with
// OpenCV.
//
// Error policy: a source never throws for bad input. A missing file, an undecodable image, an
// unreadable video, an unreachable or stalled stream, an empty folder or a glob matching nothing
// is logged (naming the thing and what to do), recorded in problems() and skipped; iteration
// continues with the next input.
#pragma once

#include <cstdint>
#include <memory>
#include <opencv2/core/mat.hpp>
#include <optional>
#include <string>
#include <vector>

namespace yolo {

// What a predict `source=` value names (an image, a folder, ...): not media::SourceKind, which is
// how a video or stream is opened (file, RTSP, V4L2, ...).
enum class InputKind { kImage, kFolder, kGlob, kList, kVideo, kStream, kUnknown };
const char* to_string(InputKind kind);

// What `source` names, from its text and (for folders) the file system. Does not open anything:
// a missing a.jpg is still kImage (reported when read). kUnknown: an existing file or a missing
// path whose extension is neither an image, a video nor .txt.
InputKind classify_source(const std::string& source);

// Lower-case extension checks without the dot ("jpg", "mp4").
bool is_image_extension(const std::string& ext);
bool is_video_extension(const std::string& ext);

// The name outputs are given for a source: the stem of a file ("a" for dir/a.jpg), the last
// path segment of a URI without its extension ("cam1" for rtsp://host:554/live/cam1), the host
// when the URI has no path, "0" for webcam 0. Characters unsafe in file names become '_'.
std::string source_stem(const std::string& source);

// How a frame's input is read.
enum class FrameOrigin { kImage, kVideo, kStream };

struct Frame {
  cv::Mat image;          // 8-bit BGR, the source's own size
  std::string path;       // file path or URI the frame came from
  std::string stream_id;  // source_stem(path)
  FrameOrigin origin = FrameOrigin::kImage;
  int item = 1, items = 1;  // 1-based position of this input among all inputs of the source
  int64_t frame_index = 0;  // 0-based number of the frame in its video/stream (before vid_stride)
  int64_t kept_number = 1;  // 1-based number among the frames yielded for this input
  int64_t kept_total = 1;  // frames this input will yield (videos: frames / vid_stride); -1 unknown
  int64_t pts_ns = -1;     // presentation timestamp, nanoseconds; -1 for images and when unknown
  double fps = 0;          // video/stream frame rate; 0 when unknown (and for images)
};

struct SourceOptions {
  int vid_stride = 1;          // yield every Nth video/stream frame (>= 1)
  bool stream_buffer = false;  // streams: false keeps only the newest frame (drops the rest so
                               // results stay live); true queues every frame (up to 30, then the
                               // decoder waits), as Ultralytics' LoadStreams
  double timeout_s = 10.0;     // give up on a video or stream with no next frame for this long
  bool images_only = false;    // a tracked image sequence: where a folder, glob or list holds
                               // images, its videos and streams are passed over (named in a
                               // log line)
};

// Frames of a whole source, in order: input after input, frame after frame.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // The next frame, or nullopt when every input is done. Bad inputs are skipped (see above).
  virtual std::optional<Frame> next() = 0;
  // Number of inputs (files or URIs) the source expanded to.
  virtual int inputs() const = 0;
  // One message per input that could not be read (or per source that expanded to nothing).
  virtual const std::vector<std::string>& problems() const = 0;
};

// Expands `source` and returns its frames. Never throws for bad input (see above); throws
// std::invalid_argument for invalid options (vid_stride < 1, timeout_s <= 0).
std::unique_ptr<FrameSource> open_source(const std::string& source, const SourceOptions& options);

}  // namespace yolo
