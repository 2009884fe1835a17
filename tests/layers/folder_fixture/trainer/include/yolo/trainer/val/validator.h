// The violation: the validator reaches back up into the loop's state (val -> train).
#pragma once
#include "yolo/trainer/train/loop_state.h"
