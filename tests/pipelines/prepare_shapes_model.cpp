// The ctest fixture `shapes_model`: trains the small detector of trained_shapes_model.h once per
// build folder, before the tests that use it. Its minutes of training count against this
// fixture's time limit, not against whichever of those tests ctest happens to run first; a
// trained model already in the build folder makes it return at once.
#include <gtest/gtest.h>

#include <filesystem>

#include "trained_shapes_model.h"

TEST(ShapesModel, IsTrainedOnceForTheTestsThatUseIt) {
  const yolo::testing::TrainedShapes shapes = yolo::testing::trained_shapes_model();
  ASSERT_TRUE(std::filesystem::exists(shapes.model)) << "training did not produce " << shapes.model;
}
