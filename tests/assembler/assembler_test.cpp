#include <gtest/gtest.h>
#include "assembler/build.h"
TEST(Assembler, Smoke) {}
