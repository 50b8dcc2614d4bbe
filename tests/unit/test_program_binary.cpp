// Program container: round trip, and rejection of truncated or garbage input.
#include <gtest/gtest.h>

#include <random>

#include "program_binary.h"

using tutti::ProgramBinary;

TEST(ProgramBinary, RoundTrip) {
  ProgramBinary pb;
  pb.source = "kernel void k(global int *a) { a[0] = 1; }";
  pb.options = "-DX=1";
  pb.entries.push_back({"PoCL|pthread|3.1", 4, {1, 2, 3}});
  pb.entries.push_back({"NVIDIA|H100|580", 4, std::vector<unsigned char>(1000, 7)});
  auto bytes = pb.serialize();
  ProgramBinary back;
  ASSERT_TRUE(back.parse(bytes.data(), bytes.size()));
  EXPECT_EQ(back.source, pb.source);
  EXPECT_EQ(back.options, pb.options);
  ASSERT_EQ(back.entries.size(), 2u);
  EXPECT_EQ(back.entries[1].bytes.size(), 1000u);
  EXPECT_EQ(back.entries[0].deviceKey, "PoCL|pthread|3.1");
}

TEST(ProgramBinary, RejectsEveryTruncationAndRandomBytes) {
  ProgramBinary pb;
  pb.source = "src";
  pb.entries.push_back({"k", 1, {9, 9}});
  auto bytes = pb.serialize();
  for (size_t n = 0; n < bytes.size(); ++n) {
    ProgramBinary out;
    EXPECT_FALSE(out.parse(bytes.data(), n)) << n;
  }
  std::mt19937 rng(1);
  for (int i = 0; i < 2000; ++i) {
    std::vector<unsigned char> junk(rng() % 64);
    for (auto &b : junk) b = rng();
    if (rng() % 2 && junk.size() >= 8) std::copy(bytes.begin(), bytes.begin() + 8, junk.begin());
    ProgramBinary out;
    EXPECT_FALSE(out.parse(junk.data(), junk.size()));
  }
  // Flipping bytes of a valid container never crashes (and length fields are checked).
  for (size_t i = 8; i < bytes.size(); ++i) {
    auto b = bytes;
    b[i] ^= 0xff;
    ProgramBinary out;
    out.parse(b.data(), b.size());
  }
}
