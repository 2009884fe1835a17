// Training end to end on a tiny synthetic set: every file a run promises, checkpoints that load,
// an interrupted run that resumes to exactly the weights of an uninterrupted one, and settings
// errors.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>
#include "test_files.h"

#include "yolo/core/cpu_features.h"
#include "yolo/core/device.h"
#include "yolo/models/checkpoint.h"
#include "yolo/synth/synthetic_data.h"
#include "yolo/trainer/modes/modes.h"
#include "yolo/trainer/settings/config.h"
#include "yolo/trainer/settings/model_source.h"
#include "yolo/trainer/train/train_checkpoint.h"
#include "yolo/trainer/train/trainer.h"

namespace fs = std::filesystem;

namespace {

// 16 training and 8 validation images of 2 shape classes, long side <= 96 px.
fs::path make_dataset(const fs::path& dir) {
  yolo::synth::SynthOptions o;
  o.dir = dir / "shapes";
  o.train_images = 16;
  o.val_images = 8;
  o.imgsz = 96;
  o.num_classes = 2;
  o.max_objects = 3;
  o.min_object_size = 0.2;
  o.threads = 1;
  return yolo::synth::generate_synthetic_dataset(o).yaml;
}

yolo::Config tiny_run(const fs::path& data, const fs::path& project, const std::string& name,
                      const std::string& model = "yolov8n.yaml") {
  yolo::Config cfg;
  cfg.apply_text_overrides({{"model", model},
                            {"data", data.string()},
                            {"imgsz", "64"},
                            {"epochs", "2"},
                            {"batch", "4"},
                            {"workers", "1"},
                            {"device", "cpu"},
                            {"project", project.string()},
                            {"name", name},
                            {"verbose", "false"}});
  return cfg;
}

// tiny_run without plots: for runs compared with each other.
yolo::Config quiet_run(const fs::path& data, const fs::path& project, const std::string& name) {
  yolo::Config c = tiny_run(data, project, name);
  c.set("plots", YAML::Node(false));
  return c;
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  return cells;
}

std::vector<std::string> csv_lines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

}  // namespace

TEST(Train, TwoEpochsWriteEveryFile) {
  yolo::testing::TempDir tmp("train_files");
  const fs::path data = make_dataset(tmp.path);
  yolo::Trainer trainer(tiny_run(data, tmp.path / "runs", "train"));
  yolo::TrainResult r = trainer.train();
  EXPECT_EQ(r.epochs_completed, 2);
  EXPECT_FALSE(r.interrupted);
  const fs::path dir = tmp.path / "runs" / "train";
  EXPECT_EQ(r.save_dir, dir);
  for (const char* f :
       {"args.yaml", "weights/last.pt", "weights/best.pt", "results.csv", "results.png",
        "labels.jpg", "train_batch0.jpg", "train_batch1.jpg", "confusion_matrix.png",
        "confusion_matrix_normalized.png", "BoxPR_curve.png", "BoxF1_curve.png", "BoxP_curve.png",
        "BoxR_curve.png", "val_batch0_labels.jpg", "val_batch0_pred.jpg"}) {
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  }
  for (const char* img : {"results.png", "labels.jpg", "BoxPR_curve.png", "val_batch0_pred.jpg"})
    EXPECT_FALSE(cv::imread((dir / img).string()).empty()) << img;

  auto lines = csv_lines(dir / "results.csv");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("epoch,time,train/box_loss,train/cls_loss,train/dfl_loss,"
                           "metrics/precision(B),metrics/recall(B),metrics/mAP50(B),"
                           "metrics/mAP50-95(B),val/box_loss,val/cls_loss,val/dfl_loss,lr/pg0",
                           0),
            0u)
      << lines[0];
  EXPECT_EQ(lines[1].rfind("1,", 0), 0u);
  EXPECT_EQ(lines[2].rfind("2,", 0), 0u);

  // args.yaml holds the settings as given.
  YAML::Node args = YAML::LoadFile((dir / "args.yaml").string());
  EXPECT_EQ(args["epochs"].as<int>(), 2);
  EXPECT_EQ(args["imgsz"].as<int>(), 64);

  // best.pt is a deployable checkpoint with the dataset's names, and final (no optimiser).
  auto loaded = yolo::load_torchscript((dir / "weights/best.pt").string(), torch::kCPU);
  EXPECT_EQ(loaded.metadata.names.size(), 2u);
  EXPECT_EQ(loaded.metadata.names.at(0), "rectangle");
  EXPECT_EQ(loaded.metadata.imgsz, (std::vector<int64_t>{64, 64}));
  auto y = loaded.module.forward({torch::rand({1, 3, 64, 64})}).toTensor();
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{1, 6, 84}));
  auto ckpt = yolo::load_training_checkpoint(dir / "weights/best.pt");
  EXPECT_TRUE(ckpt.state.finished);
  EXPECT_TRUE(ckpt.optimizer.empty());
  EXPECT_TRUE(ckpt.model_weights.empty());

  // A second run with the same name goes to train2.
  yolo::Config again = tiny_run(data, tmp.path / "runs", "train");
  again.set("epochs", YAML::Node(1));
  again.set("plots", YAML::Node(false));
  again.set("val", YAML::Node(false));
  EXPECT_EQ(yolo::Trainer(again).train().save_dir, tmp.path / "runs" / "train2");
}

// amp=True trains under BF16 autocast where this CPU computes BF16 natively and in FP32 elsewhere;
// amp=False always in FP32. Either way the weights stay finite, and the file holds them in the
// standard layout although the CPU trains channels-last.
TEST(Train, CpuPrecisionFollowsAmpAndTheCpu) {
  yolo::testing::TempDir tmp("train_amp");
  const fs::path data = make_dataset(tmp.path);
  for (bool amp : {true, false}) {
    const std::string name = amp ? "amp" : "fp32";
    yolo::Config cfg = quiet_run(data, tmp.path / "runs", name);
    cfg.set("epochs", YAML::Node(1));
    cfg.set("amp", YAML::Node(amp));
    yolo::Trainer(cfg).train();
    const fs::path last = tmp.path / "runs" / name / "weights" / "last.pt";
    EXPECT_EQ(yolo::load_training_checkpoint(last).state.amp,
              amp && yolo::cpu_features().native_bf16())
        << name;
    auto loaded = yolo::load_torchscript(last.string(), torch::kCPU);
    for (const auto& p : loaded.module.named_parameters()) {
      EXPECT_TRUE(p.value.is_contiguous()) << name << " " << p.name;
      EXPECT_TRUE(torch::isfinite(p.value).all().item<bool>()) << name << " " << p.name;
    }
  }
}

// save=False (Ultralytics' meaning): no checkpoint after each epoch, last.pt and best.pt once the
// final epoch is done.
TEST(Train, SaveFalseWritesCheckpointsOnlyAtTheEnd) {
  yolo::testing::TempDir tmp("train_save_false");
  const fs::path data = make_dataset(tmp.path);
  yolo::Config cfg = tiny_run(data, tmp.path / "runs", "train");
  cfg.set("save", YAML::Node(false));
  cfg.set("plots", YAML::Node(false));
  yolo::Trainer trainer(cfg);
  const fs::path weights = tmp.path / "runs" / "train" / "weights";
  int64_t second_epoch_batches = 0;
  trainer.set_batch_callback([&](int64_t iteration) {
    if (iteration < 4) return;  // 16 images in batches of 4: the second epoch starts at 4
    ++second_epoch_batches;
    EXPECT_FALSE(fs::exists(weights / "last.pt")) << "a checkpoint after epoch 1";
  });
  EXPECT_EQ(trainer.train().epochs_completed, 2);
  EXPECT_EQ(second_epoch_batches, 4);
  EXPECT_TRUE(fs::exists(weights / "last.pt"));
  EXPECT_TRUE(fs::exists(weights / "best.pt"));
}

TEST(Train, InterruptedRunResumesToTheSameWeights) {
  yolo::testing::TempDir tmp("train_resume");
  const fs::path data = make_dataset(tmp.path);
  auto quiet = [&](const std::string& name) { return quiet_run(data, tmp.path / "runs", name); };
  yolo::Trainer full(quiet("full"));
  ASSERT_EQ(full.train().epochs_completed, 2);

  // Stop after the second batch of the first epoch (4 batches per epoch), then resume.
  yolo::Trainer part(quiet("part"));
  part.set_batch_callback([&](int64_t ni) {
    if (ni == 1) part.request_stop();
  });
  yolo::TrainResult stopped = part.train();
  EXPECT_TRUE(stopped.interrupted);
  const fs::path last = tmp.path / "runs" / "part" / "weights" / "last.pt";
  auto state = yolo::load_training_checkpoint(last);
  EXPECT_EQ(state.state.epoch, -1);
  EXPECT_EQ(state.state.batch_in_epoch, 2);
  EXPECT_FALSE(state.optimizer.empty());

  yolo::Config resume;
  resume.apply_text_overrides({{"resume", last.string()}, {"verbose", "false"}});
  yolo::Trainer resumed(resume);
  yolo::TrainResult done = resumed.train();
  EXPECT_EQ(done.epochs_completed, 2);
  EXPECT_EQ(done.save_dir, tmp.path / "runs" / "part");

  auto a = yolo::load_eager_model((tmp.path / "runs/full/weights/last.pt").string());
  auto b = yolo::load_eager_model(last.string());
  auto pa = a->named_parameters(), pb = b->named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  double max_diff = 0;
  for (const auto& item : pa)
    max_diff = std::max(max_diff, (item.value() - pb[item.key()]).abs().max().item<double>());
  EXPECT_LT(max_diff, 1e-5);
  // The results of both runs agree too.
  auto ra = csv_lines(tmp.path / "runs/full/results.csv");
  auto rb = csv_lines(tmp.path / "runs/part/results.csv");
  ASSERT_EQ(ra.size(), rb.size());
}

// Every place a stop can land in the batches (the first batch, mid-epoch, the last batch of an
// epoch, the first of the next, the last of the run): resumed, the run ends with the weights and
// the results.csv of a run never interrupted (all columns but the wall time). A stop on an
// epoch's last batch finishes that epoch (validation, results row, checkpoint) instead of
// saving a "mid-epoch" point with no batch left, whose resume wrote a row of zero losses.
TEST(Train, ResumeFromEveryStopPointEqualsAnUninterruptedRun) {
  yolo::testing::TempDir tmp("train_resume_points");
  const fs::path data = make_dataset(tmp.path);
  auto quiet = [&](const std::string& name) { return quiet_run(data, tmp.path / "runs", name); };
  yolo::Trainer full(quiet("full"));
  ASSERT_EQ(full.train().epochs_completed, 2);
  const auto reference = csv_lines(tmp.path / "runs/full/results.csv");
  ASSERT_EQ(reference.size(), 3u);
  auto reference_model = yolo::load_eager_model((tmp.path / "runs/full/weights/last.pt").string());

  // 2 epochs of 4 batches: iterations 0..7; then a stop during each epoch's validation (-1: the
  // first epoch's, -2: the final one's, before the final checkpoint is saved).
  for (const int64_t stop_at : {0, 1, 3, 4, 7, -1, -2}) {
    SCOPED_TRACE("stop at " + std::to_string(stop_at));
    const std::string name = "part" + std::to_string(stop_at + 2);
    yolo::Trainer part(quiet(name));
    part.set_batch_callback([&](int64_t ni) {
      if (ni == stop_at) part.request_stop();
    });
    part.set_validated_callback([&](int epoch) {
      if (-1 - epoch == stop_at) part.request_stop();
    });
    const yolo::TrainResult stopped = part.train();
    if (stop_at == -1) {  // stopped right after the first epoch, its checkpoint complete
      EXPECT_TRUE(stopped.interrupted);
      EXPECT_EQ(stopped.epochs_completed, 1);
    }
    const fs::path last = tmp.path / "runs" / name / "weights" / "last.pt";
    ASSERT_TRUE(fs::exists(last));
    const auto state = yolo::load_training_checkpoint(last).state;
    // A stop point is either inside an epoch with batches left, or the end of an epoch.
    EXPECT_LT(state.batch_in_epoch, 4) << "a mid-epoch point with no batch left";
    if (stop_at == -1) {  // not one batch into the next epoch
      EXPECT_EQ(state.epoch, 0);
      EXPECT_EQ(state.batch_in_epoch, 0);
    }
    if (!state.finished) {
      yolo::Config resume;
      resume.apply_text_overrides({{"resume", last.string()}, {"verbose", "false"}});
      yolo::Trainer resumed(resume);
      EXPECT_EQ(resumed.train().epochs_completed, 2);
    }
    const auto rows = csv_lines(tmp.path / "runs" / name / "results.csv");
    ASSERT_EQ(rows.size(), reference.size());
    for (size_t r = 0; r < rows.size(); ++r) {
      auto a = split_csv(reference[r]), b = split_csv(rows[r]);
      ASSERT_EQ(a.size(), b.size());
      for (size_t c = 0; c < a.size(); ++c) {
        if (r > 0 && c == 1) continue;  // the time column: wall time
        if (r == 0) {
          EXPECT_EQ(a[c], b[c]);
        } else {
          EXPECT_NEAR(std::stod(a[c]), std::stod(b[c]), 1e-4)
              << "row " << r << " column " << split_csv(reference[0])[c];
        }
      }
    }
    auto model = yolo::load_eager_model(last.string());
    auto pa = reference_model->named_parameters(), pb = model->named_parameters();
    double max_diff = 0;
    for (const auto& item : pa)
      max_diff = std::max(max_diff, (item.value() - pb[item.key()]).abs().max().item<double>());
    EXPECT_LT(max_diff, 1e-5);
  }
}

TEST(Train, Yolo26TrainsWithTheEndToEndLossAndMuSGD) {
  yolo::testing::TempDir tmp("train_e2e");
  const fs::path data = make_dataset(tmp.path);
  yolo::Config cfg = tiny_run(data, tmp.path / "runs", "e2e", "yolo26n.yaml");
  cfg.set("epochs", YAML::Node(1));
  cfg.set("plots", YAML::Node(false));
  cfg.set("optimizer", YAML::Node("MuSGD"));
  yolo::TrainResult r = yolo::Trainer(cfg).train();
  EXPECT_EQ(r.epochs_completed, 1);
  // Validated and saved through the one-to-many head with NMS, Ultralytics' default (nms=None).
  auto loaded = yolo::load_torchscript(r.best.string(), torch::kCPU);
  EXPECT_FALSE(loaded.metadata.end2end);
  auto lines = csv_lines(r.save_dir / "results.csv");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("lr/pg7"), std::string::npos) << "MuSGD has 8 parameter groups";
  // No DFL in YOLO26 (reg_max 1): the third loss is an L1 loss, named as Ultralytics names it.
  EXPECT_NE(lines[0].find(",train/l1_loss,"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(",val/l1_loss,"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("dfl_loss"), std::string::npos) << lines[0];
}

// multi_scale resizes every batch: the same seed then trains differently from fixed-size
// batches, and out-of-range fractions are refused.
TEST(Train, NmsSettingChoosesTheInferenceHead) {
  auto v26 = yolo::build_model("yolo26n.yaml", 2);
  auto v8 = yolo::build_model("yolov8n.yaml", 2);
  yolo::Config cfg;
  yolo::choose_inference_head(*v26, cfg);
  EXPECT_FALSE(v26->detect().use_one2one);  // empty: one-to-many + NMS
  cfg.set("nms", YAML::Node(false));
  yolo::choose_inference_head(*v26, cfg);
  EXPECT_TRUE(v26->detect().use_one2one);
  yolo::choose_inference_head(*v8, cfg);  // no one-to-one head: warned, unchanged
  EXPECT_FALSE(v8->detect().use_one2one);
  cfg.set("nms", YAML::Node(true));
  yolo::choose_inference_head(*v26, cfg);
  EXPECT_FALSE(v26->detect().use_one2one);
}

TEST(Train, MultiScaleChangesTheBatchesAndChecksItsRange) {
  yolo::testing::TempDir tmp("train_multi_scale");
  const fs::path data = make_dataset(tmp.path);
  auto first_box_loss = [&](const std::string& name, const std::string& fraction) {
    yolo::Config cfg = tiny_run(data, tmp.path / "runs", name);
    cfg.apply_text_overrides({{"epochs", "1"}, {"plots", "false"}, {"multi_scale", fraction}});
    yolo::TrainResult r = yolo::Trainer(cfg).train();
    EXPECT_EQ(r.epochs_completed, 1);
    const auto lines = csv_lines(r.save_dir / "results.csv");
    EXPECT_EQ(lines.size(), 2u);
    return lines.size() > 1 ? lines[1] : std::string();
  };
  const std::string fixed = first_box_loss("fixed", "0.0");
  const std::string fixed_again = first_box_loss("fixed_again", "0.0");
  const std::string scaled = first_box_loss("scaled", "0.5");
  // Columns after epoch and time: the train losses.
  auto losses = [](const std::string& row) {
    const size_t a = row.find(','), b = row.find(',', a + 1);
    return row.substr(b + 1, 40);
  };
  EXPECT_EQ(losses(fixed), losses(fixed_again)) << "a seed repeats a run";
  EXPECT_NE(losses(fixed), losses(scaled)) << "multi_scale left the batches as they were";

  yolo::Config bad = tiny_run(data, tmp.path / "runs", "bad");
  for (const char* value : {"1.5", "1.0"}) {  // 1.5 fails the schema's range, 1.0 the trainer
    try {
      bad.apply_text_overrides({{"multi_scale", value}});
      yolo::Trainer t(bad);
      ADD_FAILURE() << "multi_scale=" << value << " was accepted";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("multi_scale=") + value[0]),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Train, SettingsErrorsNameTheFix) {
  yolo::testing::TempDir tmp("train_errors");
  const fs::path data = make_dataset(tmp.path);
  auto message = [&](std::vector<std::pair<std::string, std::string>> extra) {
    yolo::Config cfg = tiny_run(data, tmp.path / "runs", "err");
    try {  // a value out of its schema range is refused as it is set, the rest by the trainer
      cfg.apply_text_overrides(extra);
      yolo::Trainer t(cfg);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({{"optimizer", "lion"}}).find("MuSGD"), std::string::npos);
  EXPECT_NE(message({{"batch", "-1"}}).find("AutoBatch"), std::string::npos);
  EXPECT_NE(message({{"data", (tmp.path / "missing.yaml").string()}}).find("missing.yaml"),
            std::string::npos);
  EXPECT_NE(message({{"resume", (tmp.path / "nope.pt").string()}}).find("nope.pt"),
            std::string::npos);
  // Probabilities and fractions outside [0, 1] are typos, refused by name.
  EXPECT_NE(message({{"mixup", "1.5"}}).find("mixup=1.5 is out of range"), std::string::npos);
  EXPECT_NE(message({{"fliplr", "-0.5"}}).find("fliplr=-0.5"), std::string::npos);
  EXPECT_EQ(message({{"cutmix", "1"}, {"bgr", "0.1"}}), "") << "in range, so accepted";
}

// rect=True trains on batches shaped like their images (the train_batch plots are grids of
// them), and validation keeps its own shapes (pad 0.5) whatever the training batches are.
TEST(Train, RectTrainingRunsOnRectangularBatches) {
  yolo::testing::TempDir tmp("train_rect");
  const fs::path data = make_dataset(tmp.path);
  auto run = [&](const std::string& name, const std::string& rect) {
    yolo::Config cfg = tiny_run(data, tmp.path / "runs", name);
    // 128 px: at 64 a stride-32 batch is 32 or 64 px high, so most shapes round to square.
    cfg.apply_text_overrides({{"epochs", "1"}, {"imgsz", "128"}, {"rect", rect}});
    const yolo::TrainResult r = yolo::Trainer(cfg).train();
    EXPECT_EQ(r.epochs_completed, 1);
    EXPECT_TRUE(fs::exists(r.best));
    return r.save_dir;
  };
  const fs::path square = run("square", "false"), rect = run("rect", "true");
  auto size_of = [](const fs::path& jpg) {
    const cv::Mat m = cv::imread(jpg.string());
    EXPECT_FALSE(m.empty()) << jpg;
    return m.size();
  };
  bool some_not_square = false;
  for (const char* plot : {"train_batch0.jpg", "train_batch1.jpg", "train_batch2.jpg"}) {
    const cv::Size s = size_of(rect / plot);
    some_not_square = some_not_square || s.width != s.height;
    EXPECT_EQ(size_of(square / plot).width, size_of(square / plot).height) << plot;
  }
  EXPECT_TRUE(some_not_square) << "rect=True trained on square batches";
  EXPECT_EQ(size_of(rect / "val_batch0_labels.jpg"), size_of(square / "val_batch0_labels.jpg"))
      << "rect training changed the validation batches";
}

TEST(Val, ValidatesACheckpointThroughTheRuntimeAndWritesEveryFile) {
  yolo::testing::TempDir tmp("val_mode");
  const fs::path data = make_dataset(tmp.path);
  yolo::Config train = tiny_run(data, tmp.path / "runs", "train");
  train.set("epochs", YAML::Node(1));
  train.set("plots", YAML::Node(false));
  const fs::path best = yolo::Trainer(train).train().best;
  // Four wide photos besides the square ones: their rect batch is a size the checkpoint has not
  // run yet, whose preparation is reported apart from the inference (#66).
  for (int i = 0; i < 4; ++i) {
    cv::imwrite(
        (data.parent_path() / "images" / "val" / ("wide" + std::to_string(i) + ".jpg")).string(),
        cv::Mat(48, 160, CV_8UC3, cv::Scalar(30 * i, 90, 200)));
  }

  yolo::Config val;
  val.apply_text_overrides({{"model", best.string()},
                            {"data", data.string()},
                            {"device", "cpu"},
                            {"batch", "4"},
                            {"workers", "1"},
                            {"save_json", "true"},
                            {"project", (tmp.path / "runs").string()},
                            {"name", "val"},
                            {"verbose", "false"}});
  testing::internal::CaptureStdout();
  const int rc = yolo::run_val_mode(val, yolo::select_device("cpu"));
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.find("all"), std::string::npos) << out;
  EXPECT_NE(out.find("rectangle"), std::string::npos) << out;
  EXPECT_NE(out.find("Speed:"), std::string::npos) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("\nPrepared [1-9][0-9]* new input sizes? in ")))
      << out;
  const fs::path dir = tmp.path / "runs" / "val";
  for (const char* f : {"confusion_matrix.png", "confusion_matrix_normalized.png",
                        "BoxPR_curve.png", "BoxF1_curve.png", "BoxP_curve.png", "BoxR_curve.png",
                        "val_batch0_labels.jpg", "val_batch0_pred.jpg"}) {
    EXPECT_FALSE(cv::imread((dir / f).string()).empty()) << f;
  }
  // COCO-format detections: a list of {image_id, category_id, bbox [x, y, w, h], score}.
  auto json = nlohmann::json::parse(yolo::testing::read_file(dir / "predictions.json"));
  ASSERT_TRUE(json.is_array());
  ASSERT_FALSE(json.empty());  // conf 0.001: an untrained model still yields candidates
  for (const auto& d : json) {
    EXPECT_TRUE(d.contains("image_id"));
    EXPECT_EQ(d["bbox"].size(), 4u);
    EXPECT_GE(d["score"].get<double>(), 0.001);
    EXPECT_LT(d["category_id"].get<int>(), 2);
  }
}
