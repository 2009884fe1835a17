// Settings that pick a subset of a split (classes=, fraction=), checked against the data they
// pick from (#57): one that leaves nothing to train or measure is refused naming the setting and
// the numbers ("fraction=0.01 of the 8 images of 'train' leaves 0"), instead of a run on nothing;
// and the class filter itself, shared by training and validation.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "yolo/trainer/data/dataset.h"

namespace yolo {

// classes= against the dataset: an id the dataset does not have, or a filter that keeps no
// labelled object of `records` (the split before filtering), throws ConfigError naming the ids,
// the split and the objects per class it has. `required` false (validation during training,
// where training still learns) only warns about a split left empty.
void check_class_filter(const std::set<int>& classes, const DatasetConfig& data,
                        const std::vector<ImageRecord>& records, const std::string& split,
                        bool required = true);

// classes= keeps only the listed classes' labels (empty: all); single_cls maps every class to 0.
void filter_classes(std::vector<ImageRecord>& records, const std::set<int>& keep, bool single);

// fraction= of `images` images keeps round(images x fraction) of them (Ultralytics' rule): 0
// throws ConfigError with the smallest fraction that keeps one.
void check_fraction(double fraction, size_t images, const std::string& split);

}  // namespace yolo
