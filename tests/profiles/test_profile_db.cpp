// test_profile_db.cpp: ProfileDB storage, queries, export, prune and concurrent writers.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tutti/profile_db.h"

namespace tutti::profiles {
namespace {

namespace fs = std::filesystem;

class ProfileDBTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tutti-profdb-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/nested/dirs/profiles.sqlite";
  }
  void TearDown() override { fs::remove_all(dir_); }

  static KernelSample sample(const std::string& k, const std::string& d, uint64_t groups,
                             double seconds, int64_t ts = 0) {
    KernelSample s;
    s.kernelId = k;
    s.kernelName = "name_" + k;
    s.deviceId = d;
    s.workDim = 2;
    s.global = {1024, 512, 1};
    s.local = {16, 16, 1};
    s.totalGroups = 2048;
    s.groups = groups;
    s.features = {{"arg0_bytes", 4194304}, {"cost", 12.5}, {"weird\tname", 1}};
    s.seconds = seconds;
    s.timestamp = ts;
    return s;
  }

  std::string dir_, path_;
};

TEST_F(ProfileDBTest, OpenCreatesDirectoriesAndRoundTrips) {
  ProfileDB db;
  ASSERT_TRUE(db.open(path_)) << db.lastError();
  EXPECT_TRUE(fs::exists(path_));
  ASSERT_TRUE(db.addKernelSample(sample("k1", "gpu", 16, 1.5e-3)));
  ASSERT_TRUE(db.addKernelSamples({sample("k1", "gpu", 32, 3e-3), sample("k1", "cpu", 32, 9e-3),
                                   sample("k2", "gpu", 8, 1e-4)}));
  auto got = db.kernelSamples("k1", "gpu");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].kernelName, "name_k1");
  EXPECT_EQ(got[0].workDim, 2u);
  EXPECT_EQ(got[0].global[1], 512u);
  EXPECT_EQ(got[0].local[0], 16u);
  EXPECT_EQ(got[0].totalGroups, 2048u);
  EXPECT_EQ(got[0].groups, 16u);
  EXPECT_DOUBLE_EQ(got[0].seconds, 1.5e-3);
  EXPECT_DOUBLE_EQ(got[0].features.at("arg0_bytes"), 4194304);
  EXPECT_DOUBLE_EQ(got[0].features.at("cost"), 12.5);
  EXPECT_DOUBLE_EQ(got[0].features.at("weirdname"), 1);  // separators are dropped
  EXPECT_GT(got[0].timestamp, 1600000000);

  auto ks = db.kernels();
  ASSERT_EQ(ks.size(), 3u);
  EXPECT_EQ(ks[0].kernelId, "k1");
  EXPECT_EQ(ks[0].deviceId, "cpu");
  EXPECT_EQ(ks[1].samples, 2u);

  ASSERT_TRUE(db.addTransferSamples({{"gpu", Direction::H2D, true, 1 << 20, 2e-5, 0},
                                     {"gpu", Direction::D2H, false, 1 << 20, 9e-5, 0}}));
  auto ts = db.transferSamples("gpu");
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_TRUE(ts[0].pinned);
  EXPECT_EQ(ts[1].direction, Direction::D2H);
  EXPECT_EQ(ts[1].bytes, 1u << 20);
  EXPECT_TRUE(db.transferSamples("cpu").empty());

  auto devs = db.devices();
  ASSERT_EQ(devs.size(), 2u);
  EXPECT_EQ(devs[1].deviceId, "gpu");
  EXPECT_EQ(devs[1].kernelSamples, 3u);
  EXPECT_EQ(devs[1].transferSamples, 2u);

  // A second connection sees the committed data.
  ProfileDB other;
  ASSERT_TRUE(other.open(path_));
  EXPECT_EQ(other.kernelSamples("k1", "gpu").size(), 2u);
}

TEST_F(ProfileDBTest, RejectsIncompleteSamplesAtomically) {
  ProfileDB db;
  ASSERT_TRUE(db.open(path_));
  KernelSample bad = sample("", "gpu", 1, 1);
  EXPECT_FALSE(db.addKernelSamples({sample("k", "gpu", 1, 1), bad}));
  EXPECT_NE(db.lastError().find("kernel"), std::string::npos);
  EXPECT_TRUE(db.kernelSamples("k", "gpu").empty());  // the good one was rolled back too
  EXPECT_TRUE(db.addKernelSample(sample("k", "gpu", 1, 1)));
}

TEST_F(ProfileDBTest, OpenFailsCleanly) {
  ProfileDB db;
  EXPECT_FALSE(db.open("/proc/definitely/not/here.sqlite"));
  EXPECT_FALSE(db.lastError().empty());
  EXPECT_FALSE(db.isOpen());
  EXPECT_FALSE(db.addKernelSample(sample("k", "d", 1, 1)));
  EXPECT_TRUE(db.kernels().empty());
}

TEST_F(ProfileDBTest, ExportJson) {
  ProfileDB db;
  ASSERT_TRUE(db.open(path_));
  ASSERT_TRUE(db.addKernelSamples({sample("k1", "gpu", 16, 1e-3), sample("k2", "cpu", 4, 2e-3)}));
  ASSERT_TRUE(db.addTransferSample({"gpu", Direction::H2D, true, 4096, 8e-6, 0}));
  std::string all = db.exportJson();
  EXPECT_NE(all.find("\"format\": \"tutti-profiles\""), std::string::npos);
  EXPECT_NE(all.find("\"kernel_id\": \"k1\""), std::string::npos);
  EXPECT_NE(all.find("\"kernel_id\": \"k2\""), std::string::npos);
  EXPECT_NE(all.find("\"direction\": \"h2d\""), std::string::npos);
  EXPECT_NE(all.find("\"arg0_bytes\": 4194304"), std::string::npos);
  std::string k2 = db.exportJson({"k2", ""});
  EXPECT_EQ(k2.find("\"kernel_id\": \"k1\""), std::string::npos);
  EXPECT_NE(k2.find("\"kernel_id\": \"k2\""), std::string::npos);
  std::string cpu = db.exportJson({"", "cpu"});
  EXPECT_EQ(cpu.find("h2d"), std::string::npos);  // the transfer sample is the GPU's
}

TEST_F(ProfileDBTest, Prune) {
  ProfileDB db;
  ASSERT_TRUE(db.open(path_));
  const int64_t old = static_cast<int64_t>(time(nullptr)) - 40 * 86400;
  ASSERT_TRUE(db.addKernelSamples({sample("k1", "gpu", 1, 1, old), sample("k1", "gpu", 2, 1),
                                   sample("k1", "cpu", 2, 1), sample("k2", "gpu", 2, 1),
                                   sample("k2", "cpu", 2, 1)}));
  ASSERT_TRUE(db.addTransferSamples({{"gpu", Direction::H2D, true, 4096, 8e-6, old},
                                     {"cpu", Direction::H2D, true, 4096, 8e-6, 0}}));
  EXPECT_EQ(db.prune({}), -1);  // nothing selected is an error, not "delete all"
  EXPECT_EQ(db.prune({"", "", 30, false}), 2);  // one kernel and one transfer sample
  EXPECT_EQ(db.kernelSamples("k1", "gpu").size(), 1u);
  EXPECT_EQ(db.prune({"k1", "cpu", -1, false}), 1);
  EXPECT_EQ(db.prune({"k2", "", -1, false}), 2);
  EXPECT_EQ(db.transferSamples("cpu").size(), 1u);  // a kernel prune keeps transfers
  EXPECT_EQ(db.prune({"", "cpu", -1, false}), 1);
  EXPECT_EQ(db.prune({"", "", -1, true}), 1);
  EXPECT_TRUE(db.kernels().empty());
}

// One fit per (kernel, device), with the key of its input, gone with the last of its samples.
TEST_F(ProfileDBTest, FittedModelsAreKeptPerKernelAndDevice) {
  ProfileDB db;
  ASSERT_TRUE(db.open(path_));
  ASSERT_TRUE(db.addKernelSamples({sample("k1", "gpu", 1, 1), sample("k1", "cpu", 2, 1)}));
  ASSERT_TRUE(db.storeFittedModel("k1", "gpu", "key1", "model one"));
  ASSERT_TRUE(db.storeFittedModel("k1", "cpu", "key1", "model cpu"));
  auto fit = [&](const char* k, const char* d) {
    ProfileDB::StoredFit f = db.fittedModel(k, d);
    return f.fitKey + "=" + f.model;
  };
  EXPECT_EQ(fit("k1", "gpu"), "key1=model one");
  EXPECT_EQ(fit("k2", "gpu"), "=");
  ASSERT_TRUE(db.storeFittedModel("k1", "gpu", "key2", "model two"));  // replaces
  EXPECT_EQ(fit("k1", "gpu"), "key2=model two");
  EXPECT_EQ(db.prune({"", "gpu", -1, false}), 1);  // counts samples, not fits
  EXPECT_EQ(fit("k1", "gpu"), "=");
  EXPECT_EQ(fit("k1", "cpu"), "key1=model cpu");
  db.close();
  ASSERT_TRUE(db.open(path_));
  EXPECT_EQ(fit("k1", "cpu"), "key1=model cpu");
}

TEST(ProfileDBPath, DefaultPathFollowsEnvironment) {
  const char* saved[3] = {getenv("TUTTI_PROFILE_DB"), getenv("XDG_CACHE_HOME"), getenv("HOME")};
  std::string keep[3];
  for (int i = 0; i < 3; ++i) keep[i] = saved[i] ? saved[i] : "";
  setenv("TUTTI_PROFILE_DB", "/x/y.sqlite", 1);
  EXPECT_EQ(defaultDbPath(), "/x/y.sqlite");
  unsetenv("TUTTI_PROFILE_DB");
  setenv("XDG_CACHE_HOME", "/cache", 1);
  EXPECT_EQ(defaultDbPath(), "/cache/tutti/profiles.sqlite");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(defaultDbPath(), "/home/u/.cache/tutti/profiles.sqlite");
  const char* names[3] = {"TUTTI_PROFILE_DB", "XDG_CACHE_HOME", "HOME"};
  for (int i = 0; i < 3; ++i) {
    if (saved[i]) setenv(names[i], keep[i].c_str(), 1);
    else unsetenv(names[i]);
  }
}

// Several threads, each with its own connection, write many small transactions at once.
TEST_F(ProfileDBTest, ConcurrentThreadsWrite) {
  constexpr int kThreads = 4, kWrites = 40;
  std::vector<std::thread> ts;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t)
    ts.emplace_back([&, t] {
      ProfileDB db;
      if (!db.open(path_)) {
        ++failures;
        return;
      }
      for (int i = 0; i < kWrites; ++i) {
        if (!db.addKernelSamples({sample("k", "d" + std::to_string(t), 1 + i, 1e-3),
                                  sample("k", "shared", 1 + i, 1e-3)}))
          ++failures;
        if (i % 8 == 0) db.kernels();  // readers interleave with writers
      }
    });
  // A shared connection used from two threads at once also works (internal mutex).
  ProfileDB shared;
  ASSERT_TRUE(shared.open(path_));
  std::thread a([&] { for (int i = 0; i < kWrites; ++i) shared.addKernelSample(sample("s", "x", 1, 1)); });
  std::thread b([&] { for (int i = 0; i < kWrites; ++i) shared.addTransferSample({"x", Direction::D2H, false, 1, 1, 0}); });
  for (auto& t : ts) t.join();
  a.join();
  b.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(shared.kernelSamples("k", "shared").size(), size_t(kThreads * kWrites));
  EXPECT_EQ(shared.kernelSamples("k", "d3").size(), size_t(kWrites));
  EXPECT_EQ(shared.kernelSamples("s", "x").size(), size_t(kWrites));
  EXPECT_EQ(shared.transferSamples("x").size(), size_t(kWrites));
}

// Several processes create the database and profile into it at the same moment.
TEST_F(ProfileDBTest, ConcurrentProcessesWrite) {
  constexpr int kProcs = 4, kWrites = 30;
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ProfileDB db;
      if (!db.open(path_)) _exit(2);
      for (int i = 0; i < kWrites; ++i)
        if (!db.addKernelSample(sample("k", "shared", 1 + i, 1e-3))) _exit(3);
      _exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  ProfileDB db;
  ASSERT_TRUE(db.open(path_));
  EXPECT_EQ(db.kernelSamples("k", "shared").size(), size_t(kProcs * kWrites));
}

// A writer killed mid-transaction leaves the last committed state readable.
TEST_F(ProfileDBTest, SurvivesCrashMidWrite) {
  {
    ProfileDB db;
    ASSERT_TRUE(db.open(path_));
    ASSERT_TRUE(db.addKernelSample(sample("k", "d", 1, 1)));
  }
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ProfileDB db;
    if (!db.open(path_)) _exit(2);
    std::vector<KernelSample> many(20000, sample("k", "d", 2, 1));
    std::thread killer([] {
      usleep(2000);
      _exit(9);  // dies without committing or closing
    });
    db.addKernelSamples(many);
    killer.join();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ProfileDB db;
  ASSERT_TRUE(db.open(path_)) << db.lastError();
  size_t n = db.kernelSamples("k", "d").size();
  EXPECT_TRUE(n == 1 || n == 20001) << n;  // all or nothing
  EXPECT_TRUE(db.addKernelSample(sample("k", "d", 3, 1)));
}

}  // namespace
// A damaged file is refused at open, not read into models (issue 19: a database copied
// over a name whose old write-ahead log was still there put 4096^2 products on the CPU).
TEST_F(ProfileDBTest, DamagedFileIsRefused) {
  {
    ProfileDB db;
    ASSERT_TRUE(db.open(path_)) << db.lastError();
    std::vector<KernelSample> many;
    for (int i = 0; i < 2000; ++i) many.push_back(sample("k" + std::to_string(i % 7), "gpu", 1 + i, 1e-3 * i));
    ASSERT_TRUE(db.addKernelSamples(many));
  }
  ProfileDB check;
  ASSERT_TRUE(check.open(path_)) << "an intact database opens: " << check.lastError();
  check.close();
  const auto size = fs::file_size(path_);
  ASSERT_GT(size, 16u * 4096u);
  {
    FILE* f = std::fopen(path_.c_str(), "r+b");
    ASSERT_NE(f, nullptr);
    std::vector<char> junk(4 * 4096);
    for (size_t i = 0; i < junk.size(); ++i) junk[i] = char(i * 131 + 7);
    std::fseek(f, long(size / 2 / 4096 * 4096), SEEK_SET);  // whole pages of b-tree data
    std::fwrite(junk.data(), 1, junk.size(), f);
    std::fclose(f);
  }
  ProfileDB db;
  EXPECT_FALSE(db.open(path_));
  EXPECT_FALSE(db.isOpen());
  EXPECT_FALSE(db.lastError().empty());
}

}  // namespace tutti::profiles
