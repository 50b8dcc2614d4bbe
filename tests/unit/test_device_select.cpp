// TUTTI_DEVICES selection grammar.
#include <gtest/gtest.h>

#include "backend.h"

using tutti::BackingDevice;

namespace {
std::vector<BackingDevice *> fleet() {
  static BackingDevice cpu, gpu0, gpu1;
  cpu.index = 0, cpu.type = CL_DEVICE_TYPE_CPU, cpu.name = "pthread-cpu";
  gpu0.index = 1, gpu0.type = CL_DEVICE_TYPE_GPU, gpu0.name = "NVIDIA H100";
  gpu1.index = 2, gpu1.type = CL_DEVICE_TYPE_GPU, gpu1.name = "NVIDIA H200";
  return {&cpu, &gpu0, &gpu1};
}
std::vector<std::string> pick(const std::string &spec, bool expectOk = true) {
  std::vector<BackingDevice *> out;
  std::string err;
  bool ok = tutti::selectDevices(spec, fleet(), out, err);
  EXPECT_EQ(ok, expectOk) << spec << ": " << err;
  std::vector<std::string> names;
  for (auto *d : out) names.push_back(d->name);
  return names;
}
}  // namespace

TEST(DeviceSelect, ByTypeIndexAndName) {
  EXPECT_EQ(pick("all").size(), 3u);
  EXPECT_EQ(pick("gpu"), (std::vector<std::string>{"NVIDIA H100", "NVIDIA H200"}));
  EXPECT_EQ(pick("cpu,gpu1"), (std::vector<std::string>{"pthread-cpu", "NVIDIA H200"}));
  EXPECT_EQ(pick("2"), (std::vector<std::string>{"NVIDIA H200"}));
  EXPECT_EQ(pick("h100"), (std::vector<std::string>{"NVIDIA H100"}));
  EXPECT_EQ(pick("gpu0, gpu0 ,cpu"), (std::vector<std::string>{"NVIDIA H100", "pthread-cpu"}));
}

TEST(DeviceSelect, UnknownTokensAreErrors) {
  pick("tpu", false);
  pick("7", false);
  pick("gpu5", false);
  pick("", false);
}
