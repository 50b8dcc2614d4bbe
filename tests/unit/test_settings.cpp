// Settings table: defaults, typed parses, and clear errors for bad values.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "settings.h"

namespace {
std::map<std::string, std::string> g_env;
const char *lookup(const char *name) {
  auto it = g_env.find(name);
  return it == g_env.end() ? nullptr : it->second.c_str();
}
bool parse(tutti::Settings &s, std::string &err) { return tutti::parseSettings(s, err, lookup); }
}  // namespace

TEST(Settings, DefaultsComeFromTheTable) {
  g_env.clear();
  tutti::Settings s;
  std::string err;
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.device_type, tutti::DeviceType::Gpu);
  EXPECT_EQ(s.placement.kind, tutti::Placement::Auto);
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].kind, tutti::DevicePick::All);
  EXPECT_EQ(s.log, tutti::LogLevel::Warn);
  EXPECT_FALSE(s.batch);
  EXPECT_TRUE(s.zero_copy);
  EXPECT_EQ(s.direct_min, 1048576u);
  EXPECT_EQ(s.mode, tutti::KernelMode::Whole);
  EXPECT_EQ(s.partition.kind, tutti::Partition::Auto);
  EXPECT_EQ(s.profile, tutti::ProfileMode::Off);
}

TEST(Settings, EveryRowHasEnvNameAndHelp) {
  for (auto &spec : tutti::settingSpecs()) {
    EXPECT_EQ(std::string(spec.env).rfind("TUTTI_", 0), 0u);
    EXPECT_GT(std::string(spec.help).size(), 10u) << spec.env;
  }
}

// Enum rows list enumerators; tutti-info --env and the errors show them in lower case.
TEST(Settings, EnumChoicesAreTheEnumeratorsInLowerCase) {
  std::map<std::string, std::string> choices;
  for (auto &spec : tutti::settingSpecs()) choices[spec.env] = spec.choices;
  EXPECT_EQ(choices["TUTTI_DEVICE_TYPE"], "gpu|cpu|accelerator");
  EXPECT_EQ(choices["TUTTI_LOG"], "error|warn|info|debug");
  EXPECT_EQ(choices["TUTTI_STAGING"], "auto|on|off");
  EXPECT_EQ(choices["TUTTI_MODE"], "whole|skmd");
  EXPECT_EQ(choices["TUTTI_PLACEMENT"], "auto|roundrobin|device:N");
}

TEST(Settings, EnumAndBoolAreNormalized) {
  g_env = {{"TUTTI_DEVICE_TYPE", "CPU"}, {"TUTTI_BATCH", "yes"}, {"TUTTI_LOG", "Debug"}};
  tutti::Settings s;
  std::string err;
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.device_type, tutti::DeviceType::Cpu);
  EXPECT_TRUE(s.batch);
  EXPECT_EQ(s.log, tutti::LogLevel::Debug);
}

TEST(Settings, EnumsParseToTheirEnumerators) {
  g_env = {{"TUTTI_DEVICE_TYPE", "accelerator"}, {"TUTTI_PINNED", "on"},
           {"TUTTI_STAGING", "OFF"}, {"TUTTI_MODE", "skmd"}, {"TUTTI_LOG", "error"}};
  tutti::Settings s;
  std::string err;
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.device_type, tutti::DeviceType::Accelerator);
  EXPECT_EQ(s.pinned, tutti::PinnedMode::On);
  EXPECT_EQ(s.staging, tutti::StagingMode::Off);
  EXPECT_EQ(s.mode, tutti::KernelMode::Skmd);
  EXPECT_EQ(s.log, tutti::LogLevel::Error);
  g_env = {{"TUTTI_MODE", "split"}};
  EXPECT_FALSE(parse(s, err));
  EXPECT_NE(err.find("TUTTI_MODE='split' is not valid: expected one of whole|skmd"),
            std::string::npos) << err;
  g_env = {{"TUTTI_PINNED", ""}};
  EXPECT_FALSE(parse(s, err));
  EXPECT_NE(err.find("TUTTI_PINNED"), std::string::npos) << err;
}

TEST(Settings, BoolsTakeTheUsualSpellings) {
  tutti::Settings s;
  std::string err;
  for (const char *on : {"1", "on", "YES", "true"}) {
    g_env = {{"TUTTI_STATS", on}, {"TUTTI_ZERO_COPY", "0"}};
    ASSERT_TRUE(parse(s, err)) << on << ": " << err;
    EXPECT_TRUE(s.stats) << on;
    EXPECT_FALSE(s.zero_copy);
  }
  for (const char *off : {"0", "off", "No", "false", ""}) {
    g_env = {{"TUTTI_HUGE_PAGES", off}, {"TUTTI_MODEL_CORRECTION", off}};
    ASSERT_TRUE(parse(s, err)) << off << ": " << err;
    EXPECT_FALSE(s.huge_pages) << off;
    EXPECT_FALSE(s.model_correction) << off;
  }
  g_env = {{"TUTTI_ZERO_COPY", "2"}};
  EXPECT_FALSE(parse(s, err));
  EXPECT_NE(err.find("TUTTI_ZERO_COPY='2' is not valid: expected 0 or 1"), std::string::npos) << err;
}

TEST(Settings, NumbersAreParsedOnce) {
  g_env = {{"TUTTI_STAGING_MB", "128"}, {"TUTTI_SPLIT_MIN_GAIN", "0"},
           {"TUTTI_VALIDATE_SEED", "18446744073709551615"}};
  tutti::Settings s;
  std::string err;
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.staging_mb, 128u);
  EXPECT_EQ(s.split_min_gain, 0u);
  EXPECT_EQ(s.validate_seed, UINT64_MAX);
  EXPECT_EQ(s.staging_min, 4194304u);  // default
  for (const char *bad : {"-1", "1e6", " 8", "", "18446744073709551616"}) {
    g_env = {{"TUTTI_STAGING_MIN", bad}};
    EXPECT_FALSE(parse(s, err)) << bad;
    EXPECT_NE(err.find("TUTTI_STAGING_MIN='" + std::string(bad) + "' is not valid: expected a number"),
              std::string::npos) << err;
  }
}

TEST(Settings, PlacementIsAutoRoundRobinOrADevice) {
  tutti::Settings s;
  std::string err;
  g_env = {{"TUTTI_PLACEMENT", "device:1"}};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.placement.kind, tutti::Placement::Device);
  EXPECT_EQ(s.placement.device, 1);
  g_env = {{"TUTTI_PLACEMENT", "device:12"}};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.placement.device, 12);
  g_env = {{"TUTTI_PLACEMENT", "roundrobin"}};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.placement.kind, tutti::Placement::RoundRobin);
  for (const char *bad : {"device:x", "device:", "device:-1", "device:99999999999", "fastest"}) {
    g_env = {{"TUTTI_PLACEMENT", bad}};
    EXPECT_FALSE(parse(s, err)) << bad;
    EXPECT_NE(err.find("TUTTI_PLACEMENT='" + std::string(bad) +
                       "' is not valid: expected auto, roundrobin or device:N"),
              std::string::npos) << err;
  }
}

TEST(Settings, PartitionIsAutoLinearOrFixedWeights) {
  tutti::Settings s;
  std::string err;
  g_env = {{"TUTTI_PARTITION", "linear"}};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.partition.kind, tutti::Partition::Linear);
  EXPECT_TRUE(s.partition.weights.empty());
  g_env = {{"TUTTI_PARTITION", "fixed:3,0,1.5"}};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.partition.kind, tutti::Partition::Fixed);
  EXPECT_EQ(s.partition.weights, (std::vector<double>{3, 0, 1.5}));
  for (const char *bad : {"fixed:", "fixed:0,0", "fixed:1,-1", "fixed:1,,2", "fixed:a", "fixed:inf",
                          "fixed:nan", "even"}) {
    g_env = {{"TUTTI_PARTITION", bad}};
    EXPECT_FALSE(parse(s, err)) << bad;
    EXPECT_NE(err.find("TUTTI_PARTITION='" + std::string(bad) + "' is not valid"), std::string::npos)
        << err;
  }
}

TEST(Settings, BadValuesAreErrorsNamingTheVariable) {
  tutti::Settings s;
  std::string err;
  g_env = {{"TUTTI_DEVICE_TYPE", "fpga"}};
  EXPECT_FALSE(parse(s, err));
  EXPECT_NE(err.find("TUTTI_DEVICE_TYPE"), std::string::npos);
  EXPECT_NE(err.find("gpu|cpu|accelerator"), std::string::npos);
  g_env = {{"TUTTI_BATCH", "maybe"}};
  EXPECT_FALSE(parse(s, err));
  EXPECT_NE(err.find("TUTTI_BATCH"), std::string::npos);
  g_env = {{"TUTTI_PLACEMENT", "device:x"}};
  EXPECT_FALSE(parse(s, err));
  EXPECT_NE(err.find("TUTTI_PLACEMENT"), std::string::npos);
}

TEST(Settings, ProfileIsASwitchOrValidate) {
  tutti::Settings s;
  std::string err;
  g_env = {{"TUTTI_PROFILE", "yes"}};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.profile, tutti::ProfileMode::On);
  g_env = {{"TUTTI_PROFILE", "Validate"}, {"TUTTI_VALIDATE_RUNS", "3"}};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.profile, tutti::ProfileMode::Validate);
  EXPECT_EQ(s.validate_runs, 3u);
  EXPECT_EQ(s.validate_seed, 1u);
  g_env = {};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.profile, tutti::ProfileMode::Off);
  g_env = {{"TUTTI_PROFILE", "check"}};
  EXPECT_FALSE(parse(s, err));
  EXPECT_NE(err.find("TUTTI_PROFILE='check' is not valid: expected 0, 1 or validate"),
            std::string::npos) << err;
  g_env = {{"TUTTI_VALIDATE_RUNS", "many"}};
  EXPECT_FALSE(parse(s, err));
  EXPECT_NE(err.find("TUTTI_VALIDATE_RUNS"), std::string::npos) << err;
}

// Which devices the picks match is decided at discovery (test_device_select.cpp); the
// grammar is checked here, once.
TEST(Settings, DevicesAreAListOfPicks) {
  tutti::Settings s;
  std::string err;
  g_env = {{"TUTTI_DEVICES", " CPU, gpu1,2,,NVIDIA H100,acc0,gpu1x"}};
  ASSERT_TRUE(parse(s, err)) << err;
  ASSERT_EQ(s.devices.size(), 6u);
  EXPECT_EQ(s.devices[0].kind, tutti::DevicePick::Type);
  EXPECT_EQ(s.devices[0].type, tutti::DeviceType::Cpu);
  EXPECT_EQ(s.devices[1].kind, tutti::DevicePick::NthOfType);
  EXPECT_EQ(s.devices[1].type, tutti::DeviceType::Gpu);
  EXPECT_EQ(s.devices[1].n, 1u);
  EXPECT_EQ(s.devices[2].kind, tutti::DevicePick::Index);
  EXPECT_EQ(s.devices[2].n, 2u);
  EXPECT_EQ(s.devices[3].kind, tutti::DevicePick::Name);
  EXPECT_EQ(s.devices[3].text, "nvidia h100");
  EXPECT_EQ(s.devices[4].kind, tutti::DevicePick::NthOfType);
  EXPECT_EQ(s.devices[4].type, tutti::DeviceType::Accelerator);
  EXPECT_EQ(s.devices[5].kind, tutti::DevicePick::Name);
  g_env = {};
  ASSERT_TRUE(parse(s, err)) << err;
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].kind, tutti::DevicePick::All);
  for (const char *bad : {"", " , ", "99999999999999999999999"}) {
    g_env = {{"TUTTI_DEVICES", bad}};
    EXPECT_FALSE(parse(s, err)) << bad;
    EXPECT_NE(err.find("TUTTI_DEVICES='" + std::string(bad) + "' is not valid"), std::string::npos)
        << err;
  }
}
