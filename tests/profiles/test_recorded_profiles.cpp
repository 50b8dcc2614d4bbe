// test_recorded_profiles.cpp: TimeModel on profiles recorded on real machines (data/issue*.tsv).
// Each file holds the profiling-ladder samples of an app's kernels at thesis Table 3.3's two
// profile sizes and validation runs at the real size; the models fitted to the samples must
// predict the validation runs within the errors listed here.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "tutti/time_model.h"

namespace tutti::profiles {
namespace {

using Key = std::pair<std::string, std::string>;  // kernel, device
struct Recorded {
  std::map<Key, std::vector<KernelSample>> samples, measured;
};

Recorded load(const std::string& path) {
  Recorded r;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string what, kernel, dev, feats;
    KernelSample s;
    ls >> what >> kernel >> dev >> s.groups >> s.totalGroups >> s.local[0] >> s.seconds >> feats;
    std::istringstream fs(feats);
    for (std::string kv; std::getline(fs, kv, ',');) {
      size_t eq = kv.find('=');
      s.features[kv.substr(0, eq)] = std::stod(kv.substr(eq + 1));
    }
    s.kernelId = kernel;
    s.deviceId = dev;
    (what == "sample" ? r.samples : r.measured)[{kernel, dev}].push_back(s);
  }
  return r;
}

struct Case {
  const char* file;
  const char* kernel;
  const char* device;
  double maxError;  // mean |relative error| over the validation runs
  double before;    // what the models of commit 73ce247 gave (documentation)
};

// The CPU limits leave room for that VM's own spread: the same count timed in two processes
// differs by 5-15 % there (repeatability-f15d1aa.txt), whatever the model.
const Case kCases[] = {
    // Histogram: every group does the same work at every size (same cost per work-item,
    // same group size), but the CPU ran 7.6 us per group at 4 M numbers and 6.0 at 16 M;
    // size terms and a late bend through those two sizes put the 67 M runs far off
    // (commit 73ce247's models: the "before" column).
    {"issue5_histogram_h100.tsv", "histogram256", "cpu", 0.15, 0.405},
    {"issue5_histogram_h100.tsv", "histogram256", "gpu", 0.05, 0.871},
    // A second Histogram profile (9750615): there a size term beat h = 1 by the CV margin
    // and put the H100 90 % off; the two sizes' ladders agree at their shared counts.
    {"issue5_histogram_h100_b.tsv", "histogram256", "gpu", 0.05, 0.899},
    {"issue5_histogram_h100_b.tsv", "histogram256", "cpu", 0.10, 0.048},
    {"issue5_blackscholes_h100.tsv", "blackScholes", "cpu", 0.06, 0.027},
    {"issue5_blackscholes_h100.tsv", "blackScholes", "gpu", 0.03, 0.008},
    {"issue5_aesencrypt_h100.tsv", "aesEncrypt", "cpu", 0.08, 0.044},
    {"issue5_aesencrypt_h100.tsv", "aesEncrypt", "gpu", 0.05, 0.026},
    {"issue5_aesencrypt_h100.tsv", "aesDecrypt", "cpu", 0.14, 0.106},
    {"issue5_aesencrypt_h100.tsv", "aesDecrypt", "gpu", 0.03, 0.006},
    {"issue5_binomialoption_h100.tsv", "binomialOptions", "cpu", 0.08, 0.053},
    {"issue5_binomialoption_h100.tsv", "binomialOptions", "gpu", 0.03, 0.012},
    {"issue5_vectoradd_h100.tsv", "vectorAdd", "cpu", 0.25, 0.198},
    {"issue5_vectoradd_h100.tsv", "vectorAdd", "gpu", 0.05, 0.016},
    // MersenneTwister's writes stride by the number of generators, and they do slow down
    // with size: h = 1 alone put its CPU runs 45 % off (f5f92a5); a size term that clearly
    // beats it on CV error is taken.
    {"issue5_mersennetwister_h100.tsv", "mersenneTwister", "cpu", 0.25, 0.455},
    {"issue5_mersennetwister_h100.tsv", "boxMuller", "cpu", 0.05, 0.017},
    {"issue5_mersennetwister_h100.tsv", "boxMuller", "gpu", 0.05, 0.009},
};

TEST(RecordedProfiles, Issue5ModelsPredictTheRealSize) {
  std::map<std::string, Recorded> files;
  for (const Case& c : kCases) {
    if (!files.count(c.file)) files[c.file] = load(std::string(TUTTI_PROFILE_DATA "/") + c.file);
    Recorded& r = files[c.file];
    Key key{c.kernel, c.device};
    const auto& samples = r.samples[key];
    const auto& runs = r.measured[key];
    ASSERT_GE(samples.size(), 20u) << c.file << " " << c.kernel << " " << c.device;
    ASSERT_EQ(runs.size(), 8u) << c.file << " " << c.kernel << " " << c.device;
    TimeModel m = TimeModel::fit(samples);
    double sum = 0;
    for (const KernelSample& s : runs)
      sum += std::fabs(m.predict(s.groups, s.features) - s.seconds) / s.seconds;
    double e = sum / double(runs.size());
    std::printf("%-16s %s: mean error %5.1f%% (was %5.1f%%): %s\n", c.kernel, c.device, 100 * e,
                100 * c.before, m.describe().c_str());
    EXPECT_LT(e, c.maxError) << c.kernel << " on " << c.device << ": " << m.describe();
  }
}

}  // namespace
}  // namespace tutti::profiles
