// Synthetic detection data: an Ultralytics-format dataset of coloured shapes on textured
// backgrounds, and a short H.264 video of moving shapes with per-frame ground truth. Used by
// `yolo-trainer synth`, by tests and by the end-to-end checks (train → export → pipeline).
//
// Everything is deterministic for a given seed: each image draws from its own random stream
// seeded from (seed, split, index), so the output does not depend on the thread count.
//
// Error policy: invalid options throw std::invalid_argument naming the key and the valid range;
// I/O and encoder failures throw std::runtime_error naming the file or the GStreamer element.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

namespace yolo::synth {

// The shape classes, in class-id order; a dataset with nc classes uses the first nc.
inline constexpr std::array<const char*, 10> kShapeClassNames = {
    "rectangle", "ellipse", "triangle", "pentagon", "star",
    "cross",     "ring",    "diamond",  "hexagon",  "semicircle"};

// The colour classes (cue = kColour), in class-id order.
inline constexpr std::array<const char*, 10> kColourClassNames = {
    "red", "orange", "yellow", "green", "cyan", "blue", "purple", "magenta", "white", "black"};

// What tells the classes apart. kShape: class = shape, each shape in a random colour (the
// default). kColour: class = colour (a fixed hue per class, slightly varied), each object in a
// random shape of all ten, so a detector must read colour and may not lean on shape.
enum class ClassCue { kShape, kColour };

// Encoding of the written images.
enum class ImageFormat { kJpeg, kPng };

struct SynthOptions {
  // Output folder; created if missing. Files this generator wrote before are replaced.
  std::filesystem::path dir;
  int train_images = 200;  // images in images/train (>= 0)
  int val_images = 50;     // images in images/val (>= 0)
  // Long side of the images, pixels (32..8192). Each image's long side is drawn in
  // [imgsz/2, imgsz] and its short side is 50..100% of that, landscape or portrait.
  int imgsz = 640;
  int num_classes = 3;  // nc, 1..10: the first nc names of kShapeClassNames / kColourClassNames
  ClassCue cue = ClassCue::kShape;
  uint64_t seed = 0;  // same seed and options → byte-identical files
  int threads = 0;    // worker threads for the images; 0 = all cores. Never changes the output.

  // ---- scene content (still images) ----
  int max_objects = 8;                // shapes drawn per image: uniform in 1..max_objects (0..64)
  double background_fraction = 0.05;  // share of images with no shapes (empty label file), 0..1
  // Shape size (circumscribed diameter) as a fraction of the image's short side; drawn
  // log-uniformly in [min_object_size, max_object_size]. Never below 6 pixels.
  double min_object_size = 0.03;
  double max_object_size = 0.50;
  // A shape whose visible area (after occlusion by later shapes and the image border) is below
  // this fraction of its full area, or whose visible box is narrower or lower than min_box_px,
  // is removed from the image altogether: no label without pixels, no pixels without a label.
  double min_visible_fraction = 0.30;
  int min_box_px = 4;
  ImageFormat image_format = ImageFormat::kJpeg;  // .jpg or .png (lossless) images
  int jpeg_quality = 90;                          // JPEG quality of the written images, 1..100
  // Textured gradient backgrounds with distractor lines, sensor noise and shaded, noisy shapes
  // (true); or flat-coloured backgrounds and shapes without lines or noise (false): an easy set
  // of the kind small shape demos use. Applies to the still images and the video.
  bool clutter = true;

  // ---- video ----
  bool video = false;      // generate_synthetic_dataset also writes video/synthetic.{mp4,jsonl}
  int video_frames = 150;  // frames in the video (1..100000)
  int video_fps = 30;      // frames per second (1..240)
  int video_objects = 6;   // shapes moving in the video (1..64)
  // Shape size (circumscribed diameter) in the video as a fraction of the frame height, drawn
  // uniformly in [video_min_object_size, video_max_object_size] (0 < min <= max <= 0.9). Set them
  // to the still images' range so that a model trained on the images meets the same sizes.
  double video_min_object_size = 0.12;
  double video_max_object_size = 0.30;
};

struct SynthReport {
  std::filesystem::path yaml;  // <dir>/data.yaml
  int train_images = 0;
  int val_images = 0;
  int background_images = 0;           // images with an empty label file
  int instances = 0;                   // label lines written, train + val
  std::vector<int> class_instances;    // label lines per class id (size nc)
  std::filesystem::path video;         // <dir>/video/synthetic.mp4, empty unless options.video
  std::filesystem::path video_labels;  // <dir>/video/synthetic.jsonl, empty unless options.video
  // <dir>/video/gt/gt.txt: the same ground truth in MOTChallenge's layout, for tracking metrics;
  // empty unless options.video.
  std::filesystem::path video_mot;
};

// The class names of a dataset with these options: the first nc shape or colour names.
std::vector<std::string> synth_class_names(const SynthOptions& options);

// Throws std::invalid_argument naming the first invalid option and its valid range.
void validate_synth_options(const SynthOptions& options);

// Writes, under options.dir:
//   images/{train,val}/{train,val}_NNNNNN.jpg   the images (.png with ImageFormat::kPng)
//   labels/{train,val}/{train,val}_NNNNNN.txt   one line per object: `class cx cy w h`,
//                                               normalised to [0,1], 6 decimals; the box is
//                                               the tight box of the object's visible pixels
//   data.yaml   `train: images/train`, `val: images/val` (relative to the YAML's own folder, so
//               the folder can be moved), `nc`, `names: {0: rectangle, ...}` (or red, ...)
// plus the video when options.video. Each file is written atomically. Stale images and labels
// from an earlier, larger run (same naming scheme), images in the other format, and Ultralytics
// label caches are removed.
SynthReport generate_synthetic_dataset(const SynthOptions& options);

// Writes an H.264/MP4 video of options.video_objects shapes moving at constant velocities and
// spinning, bouncing off the frame edges, over a static textured background. Frame size:
// imgsz × imgsz*9/16, both rounded to even (640 → 640×360); options.video_fps fps;
// options.video_frames frames. Encoded by the media library's H.264 writer (yolo/media/
// h264_writer.h: appsrc ! videoconvert ! I420 ! x264enc ! h264parse ! mp4mux ! filesink).
// `jsonl` receives one JSON object per frame:
//   {"frame": N, "pts_ms": N*1000/fps, "width": W, "height": H,
//    "objects": [{"track_id", "class_id", "class_name", "x1", "y1", "x2", "y2", "visibility"}]}
// with boxes in frame pixels (x2, y2 exclusive: the box covers columns x1..x2-1) around the
// object's visible pixels. Every object with visible pixels is listed (a moving object cannot
// vanish); `visibility` is visible area / full area so evaluators can mark occluded ones.
// `mot` (when not empty) receives the same boxes as MOTChallenge ground truth, one line per
// object per frame: `frame,id,x,y,w,h,1,-1,-1,-1` with frames and ids from 1 (id = track_id + 1)
// and (x, y) the top-left corner, what tracking evaluators (ours, TrackEval, py-motmetrics) read.
// The files are written to temporary names and renamed when complete. Throws
// std::runtime_error naming the missing GStreamer element when the encoder cannot be built.
void generate_synthetic_video(const SynthOptions& options, const std::filesystem::path& video,
                              const std::filesystem::path& jsonl,
                              const std::filesystem::path& mot = {});

// Empty when the GStreamer video encoder is usable; otherwise why not (which element is
// missing, and its package), for a clear error or a skipped test.
std::string synthetic_video_unavailable_reason();

// ---- one rendered image, exposed so tests can check labels against pixels ----

enum class SynthSplit { kTrain = 0, kVal = 1 };

struct SynthObject {
  int class_id = 0;
  cv::Mat visible_mask;   // CV_8UC1, image size: 255 where this object's pixels are visible
  cv::Rect box;           // tight box of visible_mask, pixels (x + width is exclusive)
  double visibility = 0;  // visible area / full (unoccluded, unclipped) area, 0..1
};

struct SynthImage {
  cv::Mat image;       // CV_8UC3 BGR, what is encoded to JPEG
  cv::Mat background;  // CV_8UC3 BGR: `image` equals it wherever no visible_mask is set
  std::vector<SynthObject> objects;  // labelled objects, bottom to top; masks are disjoint
  int dropped_objects = 0;           // shapes removed for being too hidden or too small
};

// Renders image `index` of `split` exactly as generate_synthetic_dataset writes it (before
// JPEG compression). Validates options like generate_synthetic_dataset.
SynthImage render_synthetic_image(const SynthOptions& options, SynthSplit split, int index);

// The label file content for `image`: `class cx cy w h\n` per object, 6 decimals.
std::string format_yolo_labels(const SynthImage& image);

}  // namespace yolo::synth
