// Plots: sizes, content where the data says it should be, and atomic JPEG files.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <opencv2/imgcodecs.hpp>

#include "yolo/trainer/plots/plots.h"

TEST(Plots, LabelStatistics) {
  std::vector<yolo::ImageRecord> records(3);
  records[0].boxes = {{0, 0.5f, 0.5f, 0.2f, 0.2f}, {1, 0.2f, 0.8f, 0.1f, 0.3f}};
  records[1].boxes = {{0, 0.4f, 0.4f, 0.3f, 0.1f}};
  cv::Mat m = yolo::plot_label_statistics(records, {{0, "cat"}, {1, "dog"}});
  EXPECT_EQ(m.cols, 800);
  EXPECT_EQ(m.rows, 800);
  // Class 0 has the most instances: its bar reaches near the top of the first panel's area, in
  // class 0's colour.
  const cv::Scalar c0 = yolo::class_colour(0);
  bool found = false;
  for (int x = 48; x < 400 && !found; ++x) {
    cv::Vec3b px = m.at<cv::Vec3b>(60, x);
    found = px == cv::Vec3b(uchar(c0[0]), uchar(c0[1]), uchar(c0[2]));
  }
  EXPECT_TRUE(found);
}

TEST(Plots, BatchGridAndSave) {
  yolo::Batch b;
  b.images = torch::zeros({3, 3, 64, 96});
  b.targets = torch::tensor({0.f, 1.f, 0.5f, 0.5f, 0.5f, 0.5f}).view({1, 6});
  b.paths = {"a.jpg", "b.jpg", "c.jpg"};
  cv::Mat grid = yolo::plot_batch(b, {{1, "dog"}});
  EXPECT_EQ(grid.cols, 2 * 96);
  EXPECT_EQ(grid.rows, 2 * 64);
  // The box edge of image 0 is drawn in class 1's colour at x = 24 (0.25 * 96).
  const cv::Scalar c1 = yolo::class_colour(1);
  EXPECT_EQ(grid.at<cv::Vec3b>(32, 24), cv::Vec3b(uchar(c1[0]), uchar(c1[1]), uchar(c1[2])));
  auto path = std::filesystem::temp_directory_path() / "yolo_plots" / "train_batch0.jpg";
  yolo::save_plot(path, grid);
  EXPECT_EQ(cv::imread(path.string()).cols, grid.cols);
  EXPECT_THROW(
      yolo::plot_batch(yolo::Batch{torch::zeros({0, 3, 8, 8}), torch::zeros({0, 6}), {}, {}, {}, 0},
                       {}),
      std::invalid_argument);
}
