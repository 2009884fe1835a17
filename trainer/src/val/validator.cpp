#include "yolo/trainer/val/validator.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <torch/torch.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "yolo/core/atomic_file.h"
#include "yolo/core/box_math.h"
#include "yolo/core/progress_bar.h"
#include "yolo/core/stopwatch.h"
#include "yolo/runtime/image_detect.h"
#include "yolo/trainer/plots/metric_plots.h"
#include "yolo/trainer/plots/plots.h"

namespace yolo {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// COCO's image_id: the file stem as a number when it is one (COCO's own files), else the stem.
nlohmann::json coco_image_id(const std::string& path) {
  const std::string stem = fs::path(path).stem().string();
  if (!stem.empty() && stem.find_first_not_of("0123456789") == std::string::npos &&
      stem.size() < 18)
    return std::stoll(stem);
  return stem;
}

// Detections as a Batch's targets (cx, cy, w, h normalised) so that plot_batch draws them.
Batch predictions_as_batch(const Batch& batch, const std::vector<torch::Tensor>& dets,
                           float min_conf) {
  Batch out;
  out.images = batch.images;
  out.paths = batch.paths;
  const double w = static_cast<double>(batch.images.size(3));
  const double h = static_cast<double>(batch.images.size(2));
  std::vector<torch::Tensor> rows;
  for (size_t i = 0; i < dets.size(); ++i) {
    auto d = dets[i];
    d = d.index({d.select(1, 4) > min_conf});
    if (d.size(0) == 0) continue;
    auto idx = torch::full({d.size(0), 1}, static_cast<double>(i), d.options());
    auto cx = (d.select(1, 0) + d.select(1, 2)) / 2 / w,
         cy = (d.select(1, 1) + d.select(1, 3)) / 2 / h;
    auto bw = (d.select(1, 2) - d.select(1, 0)) / w, bh = (d.select(1, 3) - d.select(1, 1)) / h;
    rows.push_back(
        torch::cat({idx, d.select(1, 5).unsqueeze(1), torch::stack({cx, cy, bw, bh}, 1)}, 1));
  }
  out.targets = rows.empty() ? torch::zeros({0, 6}) : torch::cat(rows, 0);
  return out;
}

// Validation's NMS: Ultralytics' validator keeps every class above conf for a box (multi-label).
NmsOptions validation_nms(const ValidatorOptions& o) {
  NmsOptions nms;
  nms.conf = static_cast<float>(o.conf);
  nms.iou = static_cast<float>(o.iou);
  nms.max_det = o.max_det;
  nms.agnostic = o.agnostic;
  nms.multi_label = true;
  return nms;
}

// One image's detections in COCO's predictions.json form (source-image pixels, xywh, rounded as
// Ultralytics writes them).
void append_coco_predictions(nlohmann::json& coco, const torch::Tensor& dets,
                             const LetterboxTransform& transform, const std::string& path) {
  torch::Tensor src = dets.clone();
  detections_to_source(src, transform);
  auto a = src.accessor<float, 2>();
  auto r = [](double v) { return std::round(v * 1000) / 1000; };
  for (int64_t k = 0; k < src.size(0); ++k) {
    coco.push_back({{"image_id", coco_image_id(path)},
                    {"file_name", fs::path(path).filename().string()},
                    {"category_id", static_cast<int>(a[k][5])},
                    {"bbox", {r(a[k][0]), r(a[k][1]), r(a[k][2] - a[k][0]), r(a[k][3] - a[k][1])}},
                    {"score", std::round(a[k][4] * 1e5) / 1e5}});
  }
}

// The first batch with its labels and with its predictions, as Ultralytics' val_batch0_*.jpg.
void save_first_batch_plots(const Batch& batch, const std::vector<torch::Tensor>& dets,
                            const ValidatorOptions& o, ValidationResult& result) {
  const fs::path labels_jpg = o.save_dir / "val_batch0_labels.jpg";
  const fs::path pred_jpg = o.save_dir / "val_batch0_pred.jpg";
  save_plot(labels_jpg, plot_batch(batch, o.names));
  save_plot(pred_jpg,
            plot_batch(predictions_as_batch(batch, dets, static_cast<float>(kPlotConf)), o.names));
  result.files.push_back(labels_jpg);
  result.files.push_back(pred_jpg);
}

// Times per image, the mean loss, the metrics, and the files written at the end of a run.
void finish_validation(ValidationResult& result, const metrics::DetectionStats& stats,
                       const metrics::ConfusionMatrix& confusion, const nlohmann::json& coco,
                       const torch::Tensor& loss_sum, int64_t batches, int64_t images,
                       const ValidatorOptions& o) {
  if (images > 0) {
    result.preprocess_ms /= static_cast<double>(images);
    result.inference_ms /= static_cast<double>(images);
    result.postprocess_ms /= static_cast<double>(images);
  }
  if (loss_sum.defined() && batches > 0) {
    auto mean = loss_sum / static_cast<double>(batches);
    result.loss = std::array<double, 3>{mean[0].item<double>(), mean[1].item<double>(),
                                        mean[2].item<double>()};
  }
  result.metrics = metrics::compute_detection_metrics(stats);
  if (o.plots && !o.save_dir.empty()) {
    for (auto& f : save_metric_curve_plots(o.save_dir, result.metrics.per_class, o.names))
      result.files.push_back(f);
    for (auto& f : save_confusion_matrix_plots(o.save_dir, confusion, o.names))
      result.files.push_back(f);
  }
  if (o.save_json && !o.save_dir.empty()) {
    const fs::path json_path = o.save_dir / "predictions.json";
    write_file_atomically(json_path, coco.dump());
    result.files.push_back(json_path);
  }
}

}  // namespace

std::string ValidationResult::speed_line() const {
  std::string line = fmt::format(
      "Speed: {:.1f}ms preprocess, {:.1f}ms inference, {:.1f}ms loss, {:.1f}ms postprocess per "
      "image",
      preprocess_ms, inference_ms, 0.0, postprocess_ms);
  if (prepared_shapes > 0) line += "\n" + shape_preparation_line(prepared_shapes, prepare_ms);
  return line;
}

std::string metrics_table_rows(const metrics::DetectionMetrics& m,
                               const std::map<int, std::string>& names, bool per_class) {
  const std::string table = metrics::format_metrics_table(m, names, per_class);
  const size_t nl = table.find('\n');
  return nl == std::string::npos ? table : table.substr(nl + 1);
}

std::vector<metrics::Prediction> to_predictions(const torch::Tensor& dets) {
  auto d = dets.to(torch::kFloat).cpu().contiguous();
  std::vector<metrics::Prediction> out(static_cast<size_t>(d.size(0)));
  const float* p = d.data_ptr<float>();
  const int64_t cols = d.size(1);
  for (size_t i = 0; i < out.size(); ++i, p += cols)
    out[i] = {{p[0], p[1], p[2], p[3]}, p[4], static_cast<int>(p[5])};
  return out;
}

std::vector<metrics::Label> to_labels(const torch::Tensor& targets, int width, int height) {
  auto t = targets.to(torch::kFloat).cpu().contiguous();
  std::vector<metrics::Label> out(static_cast<size_t>(t.size(0)));
  const float* p = t.data_ptr<float>();
  const int64_t cols = t.size(1);
  for (size_t i = 0; i < out.size(); ++i, p += cols) {
    const float w = static_cast<float>(width), h = static_cast<float>(height);
    out[i] = {boxes::to_xyxy({p[1] * w, p[2] * h, p[3] * w, p[4] * h}), static_cast<int>(p[0])};
  }
  return out;
}

Validator::Validator(ValidatorOptions options) : opts_(std::move(options)) {}

ValidationResult Validator::run(DataLoader& loader, const ValidationForward& forward,
                                const c10::Device& device) {
  torch::NoGradGuard no_grad;
  metrics::DetectionStats stats(opts_.nc);
  metrics::ConfusionMatrix confusion(opts_.nc, opts_.conf);
  const NmsOptions nms = validation_nms(opts_);
  ValidationResult result;
  nlohmann::json coco = nlohmann::json::array();
  torch::Tensor loss_sum;
  int64_t batches = 0, images = 0;

  loader.start_epoch(0);
  ProgressBar bar(static_cast<int64_t>(loader.batches_per_epoch()), opts_.progress);
  const std::string desc = metrics::metrics_table_header();
  auto t_load = Clock::now();
  while (auto batch = loader.next()) {
    auto t0 = Clock::now();
    result.preprocess_ms += ms_since(t_load);
    torch::Tensor input = batch->images.to(device, /*non_blocking=*/true);
    ModelBatchOutput out = forward(input, batch->targets);
    if (device.is_cuda()) torch::cuda::synchronize();
    result.inference_ms += ms_since(t0) - out.prepare_ms;
    result.prepare_ms += out.prepare_ms;
    result.prepared_shapes += out.prepared_new_shape ? 1 : 0;
    if (out.loss_items) {
      auto li = out.loss_items->detach().to(torch::kCPU, torch::kDouble);
      loss_sum = loss_sum.defined() ? loss_sum + li : li;
    }
    auto t1 = Clock::now();
    std::vector<torch::Tensor> dets = non_max_suppression(out.predictions, nms, opts_.end2end);
    result.postprocess_ms += ms_since(t1);

    const int w = static_cast<int>(batch->images.size(3)),
              h = static_cast<int>(batch->images.size(2));
    auto image_index = batch->targets.select(1, 0);
    for (size_t i = 0; i < dets.size(); ++i) {
      auto targets = batch->targets.index({image_index == static_cast<double>(i)}).slice(1, 1, 6);
      auto preds = to_predictions(dets[i]);
      auto labels = to_labels(targets, w, h);
      stats.add_image(preds, labels);
      confusion.process_batch(preds, labels);
      if (opts_.save_json && i < batch->transforms.size())
        append_coco_predictions(coco, dets[i], batch->transforms[i], batch->paths[i]);
    }
    if (opts_.plots && batch->index == 0 && !opts_.save_dir.empty())
      save_first_batch_plots(*batch, dets, opts_, result);
    ++batches;
    images += static_cast<int64_t>(dets.size());
    bar.update(batches, desc);
    t_load = Clock::now();
  }
  bar.finish();
  finish_validation(result, stats, confusion, coco, loss_sum, batches, images, opts_);
  result.confusion = std::move(confusion);
  return result;
}

}  // namespace yolo
