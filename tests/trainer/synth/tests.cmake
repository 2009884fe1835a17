# tests of the synthetic data generator
