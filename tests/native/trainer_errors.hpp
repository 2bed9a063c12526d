// trainer_errors.hpp — the trainer tests' check that a spec is refused: constructing a Trainer from `s`
// throws attn::Error whose message mentions `part` and whose field() is `field` (model fields under
// "model.").
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "attn/errors.hpp"
#include "attn/train/trainer.hpp"

inline void expect_spec_error(const attn::train::TrainerSpec& s, const std::string& part, const std::string& field) {
  try {
    attn::train::Trainer t(s);
    ADD_FAILURE() << "no error, expected one mentioning " << part;
  } catch (const attn::Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_EQ(e.field(), field) << e.what();
  }
}
