// One still image of the dataset: background, shapes, occlusion, and the labels that match.
#include <algorithm>

#include <fmt/format.h>

#include "backgrounds.h"
#include "class_look.h"
#include "scene.h"
#include "shapes.h"
#include "synth_random.h"
#include "yolo/synth/synthetic_data.h"

namespace yolo::synth {
namespace {

// Shapes smaller than this many pixels across are never drawn: too few pixels to be a shape.
constexpr double kMinDiameterPx = 6.0;

cv::Size sample_image_size(int imgsz, Random& rng) {
  const int long_side = rng.uniform_int(imgsz / 2, imgsz);
  const int short_side = std::max(16, static_cast<int>(long_side * rng.uniform(0.5, 1.0) + 0.5));
  // Mostly landscape, as camera frames are; portrait often enough to matter.
  return rng.chance(0.6) ? cv::Size(long_side, short_side) : cv::Size(short_side, long_side);
}

bool fails_label_rules(const VisiblePart& p, const SynthOptions& o) {
  return p.visible_area == 0 || p.visibility < o.min_visible_fraction ||
         p.box.width < o.min_box_px || p.box.height < o.min_box_px;
}

}  // namespace

SynthImage render_synthetic_image(const SynthOptions& options, SynthSplit split, int index) {
  validate_synth_options(options);
  Random rng(stream_seed(options.seed, static_cast<uint64_t>(split), static_cast<uint64_t>(index)));

  const cv::Size size = sample_image_size(options.imgsz, rng);
  Background bg = make_background(size, rng, options.clutter);

  const int count = (options.max_objects == 0 || rng.chance(options.background_fraction))
                        ? 0
                        : rng.uniform_int(1, options.max_objects);
  const double short_side = std::min(size.width, size.height);
  const double lo = std::max(options.min_object_size * short_side, kMinDiameterPx);
  const double hi = std::max(options.max_object_size * short_side, lo);
  const cv::Rect frame(cv::Point(0, 0), size);

  std::vector<SceneShape> shapes;
  shapes.reserve(count);
  for (int i = 0; i < count; ++i) {
    const int class_id = rng.uniform_int(0, options.num_classes - 1);
    const double diameter = rng.log_uniform(lo, hi);
    // Centres anywhere in the image: shapes cut by the border are realistic; the visibility
    // rule drops those mostly outside.
    const cv::Point2d centre(rng.uniform(0, size.width), rng.uniform(0, size.height));
    const ClassLook look = look_for_class(options, class_id, rng);
    SceneShape s;
    s.class_id = class_id;
    s.spec = sample_shape_spec(look.shape, centre, diameter, rng);
    s.raster = rasterize_shape(s.spec);
    const cv::Rect roi = cv::Rect(s.raster.origin, s.raster.mask.size()) & frame;
    std::vector<cv::Scalar> neighbours;
    for (const auto& other : shapes) {
      if ((cv::Rect(other.raster.origin, other.raster.mask.size()) & roi).area() > 0) {
        neighbours.push_back(cv::mean(other.fill));
      }
    }
    const cv::Scalar local_bg = roi.empty() ? cv::mean(bg.image) : cv::mean(bg.image(roi));
    const cv::Scalar colour =
        look.colour ? *look.colour : pick_contrasting_colour(local_bg, neighbours, rng);
    s.fill = make_shape_fill(s.raster.mask.size(), colour, bg.noise_sigma, rng, options.clutter);
    shapes.push_back(std::move(s));
  }

  // Remove the topmost shape that breaks the label rules, then look again: removing a shape
  // only uncovers those below it, so this drops as few shapes as possible.
  std::vector<bool> active(shapes.size(), true);
  std::vector<VisiblePart> parts;
  SynthImage out;
  for (;;) {
    parts = resolve_visibility(size, shapes, active);
    auto failing = std::find_if(parts.rbegin(), parts.rend(), [&](const VisiblePart& p) {
      return fails_label_rules(p, options);
    });
    if (failing == parts.rend()) break;
    active[failing->shape] = false;
    ++out.dropped_objects;
  }

  out.background = bg.image;
  out.image = bg.image.clone();
  composite(out.image, shapes, parts);
  for (auto& part : parts) {
    SynthObject obj;
    obj.class_id = shapes[part.shape].class_id;
    obj.visible_mask = cv::Mat::zeros(size, CV_8UC1);
    part.mask.copyTo(obj.visible_mask(part.roi));
    obj.box = part.box;
    obj.visibility = part.visibility;
    out.objects.push_back(std::move(obj));
  }
  return out;
}

std::string format_yolo_labels(const SynthImage& image) {
  const double w = image.image.cols, h = image.image.rows;
  std::string out;
  for (const auto& o : image.objects) {
    // The box covers pixel columns x..x+width-1, i.e. the continuous span [x, x+width).
    out += fmt::format("{} {:.6f} {:.6f} {:.6f} {:.6f}\n", o.class_id,
                       (o.box.x + o.box.width / 2.0) / w, (o.box.y + o.box.height / 2.0) / h,
                       o.box.width / w, o.box.height / h);
  }
  return out;
}

}  // namespace yolo::synth
