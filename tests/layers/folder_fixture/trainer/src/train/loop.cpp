// The loop validates each epoch (train -> val: a downward arrow).
#include "yolo/trainer/val/validator.h"
