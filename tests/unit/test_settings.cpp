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

// The settings parsed from env, which must be accepted.
tutti::Settings accepted(std::map<std::string, std::string> env) {
  g_env = std::move(env);
  tutti::Settings s;
  std::string err;
  EXPECT_TRUE(parse(s, err)) << err;
  return s;
}

// var=value alone must fail with "var='value' is not valid" followed by `says`.
void expectRejected(const std::string &var, const std::string &value, const std::string &says = "") {
  g_env = {{var, value}};
  tutti::Settings s;
  std::string err;
  EXPECT_FALSE(parse(s, err)) << var << "=" << value;
  EXPECT_NE(err.find(var + "='" + value + "' is not valid" + says), std::string::npos) << err;
}
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
  EXPECT_EQ(choices["TUTTI_MODE"], "whole|skmd|mkmd");
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
  tutti::Settings s = accepted({{"TUTTI_DEVICE_TYPE", "accelerator"}, {"TUTTI_PINNED", "on"},
                                {"TUTTI_STAGING", "OFF"}, {"TUTTI_MODE", "skmd"},
                                {"TUTTI_LOG", "error"}});
  EXPECT_EQ(s.device_type, tutti::DeviceType::Accelerator);
  EXPECT_EQ(s.pinned, tutti::PinnedMode::On);
  EXPECT_EQ(s.staging, tutti::StagingMode::Off);
  EXPECT_EQ(s.mode, tutti::KernelMode::Skmd);
  EXPECT_EQ(s.log, tutti::LogLevel::Error);
  expectRejected("TUTTI_MODE", "split", ": expected one of whole|skmd");
  expectRejected("TUTTI_PINNED", "", ": expected one of auto|on|off");
}

TEST(Settings, BoolsTakeTheUsualSpellings) {
  for (const char *on : {"1", "on", "YES", "true"}) {
    tutti::Settings s = accepted({{"TUTTI_STATS", on}, {"TUTTI_ZERO_COPY", "0"}});
    EXPECT_TRUE(s.stats) << on;
    EXPECT_FALSE(s.zero_copy);
  }
  for (const char *off : {"0", "off", "No", "false", ""}) {
    tutti::Settings s = accepted({{"TUTTI_HUGE_PAGES", off}, {"TUTTI_MODEL_CORRECTION", off}});
    EXPECT_FALSE(s.huge_pages) << off;
    EXPECT_FALSE(s.model_correction) << off;
  }
  expectRejected("TUTTI_ZERO_COPY", "2", ": expected 0 or 1");
}

TEST(Settings, NumbersAreParsedOnce) {
  tutti::Settings s = accepted({{"TUTTI_STAGING_MB", "128"}, {"TUTTI_SPLIT_MIN_GAIN", "0"},
                                {"TUTTI_VALIDATE_SEED", "18446744073709551615"}});
  EXPECT_EQ(s.staging_mb, 128u);
  EXPECT_EQ(s.split_min_gain, 0u);
  EXPECT_EQ(s.validate_seed, UINT64_MAX);
  EXPECT_EQ(s.staging_min, 4194304u);  // default
  for (const char *bad : {"-1", "1e6", " 8", "", "18446744073709551616"})
    expectRejected("TUTTI_STAGING_MIN", bad, ": expected a number");
}

TEST(Settings, PlacementIsAutoRoundRobinOrADevice) {
  tutti::Placement p = accepted({{"TUTTI_PLACEMENT", "device:1"}}).placement;
  EXPECT_EQ(p.kind, tutti::Placement::Device);
  EXPECT_EQ(p.device, 1);
  EXPECT_EQ(accepted({{"TUTTI_PLACEMENT", "device:12"}}).placement.device, 12);
  EXPECT_EQ(accepted({{"TUTTI_PLACEMENT", "roundrobin"}}).placement.kind,
            tutti::Placement::RoundRobin);
  for (const char *bad : {"device:x", "device:", "device:-1", "device:99999999999", "fastest"})
    expectRejected("TUTTI_PLACEMENT", bad, ": expected auto, roundrobin or device:N");
}

TEST(Settings, PartitionIsAutoLinearOrFixedWeights) {
  tutti::Partition p = accepted({{"TUTTI_PARTITION", "linear"}}).partition;
  EXPECT_EQ(p.kind, tutti::Partition::Linear);
  EXPECT_TRUE(p.weights.empty());
  p = accepted({{"TUTTI_PARTITION", "fixed:3,0,1.5"}}).partition;
  EXPECT_EQ(p.kind, tutti::Partition::Fixed);
  EXPECT_EQ(p.weights, (std::vector<double>{3, 0, 1.5}));
  for (const char *bad : {"fixed:", "fixed:0,0", "fixed:1,-1", "fixed:1,,2", "fixed:a", "fixed:inf",
                          "fixed:nan", "even"})
    expectRejected("TUTTI_PARTITION", bad, ": expected auto, linear or fixed:w0,w1,..");
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
  expectRejected("TUTTI_PROFILE", "check", ": expected 0, 1 or validate");
  expectRejected("TUTTI_VALIDATE_RUNS", "many", ": expected a number");
}

// Which devices the picks match is decided at discovery (test_device_select.cpp); the
// grammar is checked here, once.
TEST(Settings, DevicesAreAListOfPicks) {
  tutti::Settings s = accepted({{"TUTTI_DEVICES", " CPU, gpu1,2,,NVIDIA H100,acc0,gpu1x"}});
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
  s = accepted({});
  ASSERT_EQ(s.devices.size(), 1u);
  EXPECT_EQ(s.devices[0].kind, tutti::DevicePick::All);
  for (const char *bad : {"", " , ", "99999999999999999999999"})
    expectRejected("TUTTI_DEVICES", bad, ": expected a comma list");
}
