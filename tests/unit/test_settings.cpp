// Settings table: defaults, normalization, and clear errors for bad values.
#include <gtest/gtest.h>

#include <map>
#include <string>

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
  EXPECT_EQ(s.device_type, "gpu");
  EXPECT_EQ(s.placement, "auto");
  EXPECT_EQ(s.devices, "all");
  EXPECT_EQ(s.log, "warn");
  EXPECT_EQ(s.batch, "0");
}

TEST(Settings, EveryRowHasEnvNameAndHelp) {
  for (auto &spec : tutti::settingSpecs()) {
    EXPECT_EQ(std::string(spec.env).rfind("TUTTI_", 0), 0u);
    EXPECT_GT(std::string(spec.help).size(), 10u) << spec.env;
  }
}

TEST(Settings, EnumAndBoolAreNormalized) {
  g_env = {{"TUTTI_DEVICE_TYPE", "CPU"}, {"TUTTI_BATCH", "yes"}, {"TUTTI_LOG", "Debug"}};
  tutti::Settings s;
  std::string err;
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.device_type, "cpu");
  EXPECT_EQ(s.batch, "1");
  EXPECT_EQ(s.log, "debug");
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
  g_env = {{"TUTTI_PLACEMENT", "device:1"}};
  EXPECT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.placement, "device:1");
}

TEST(Settings, ProfileIsASwitchOrValidate) {
  tutti::Settings s;
  std::string err;
  g_env = {{"TUTTI_PROFILE", "yes"}};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.profile, "1");
  g_env = {{"TUTTI_PROFILE", "Validate"}, {"TUTTI_VALIDATE_RUNS", "3"}};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.profile, "validate");
  EXPECT_EQ(s.validate_runs, "3");
  EXPECT_EQ(s.validate_seed, "1");
  g_env = {};
  ASSERT_TRUE(parse(s, err)) << err;
  EXPECT_EQ(s.profile, "0");
  g_env = {{"TUTTI_PROFILE", "check"}};
  EXPECT_FALSE(parse(s, err));
  EXPECT_NE(err.find("TUTTI_PROFILE='check'"), std::string::npos) << err;
  g_env = {{"TUTTI_VALIDATE_RUNS", "many"}};
  EXPECT_FALSE(parse(s, err));
  EXPECT_NE(err.find("TUTTI_VALIDATE_RUNS"), std::string::npos) << err;
}
