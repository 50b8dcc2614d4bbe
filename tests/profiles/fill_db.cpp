// fill_db.cpp: fills a profile database through the library for the tutti-profile test.
// Usage: tutti_profiles_fill_db PATH
#include <cstdio>
#include <ctime>

#include "synthetic.h"
#include "tutti/profile_db.h"

int main(int argc, char** argv) {
  using namespace tutti::profiles;
  if (argc != 2) return 2;
  ProfileDB db;
  if (!db.open(argv[1])) {
    std::fprintf(stderr, "%s\n", db.lastError().c_str());
    return 1;
  }
  const testing::Curve gpu = [](double x, const Features&) { return 1e-5 + 4e-9 * testing::softMax(x, 528); };
  auto s = testing::ladderSamples(gpu, testing::vecaddFeatures(1 << 20), 4096);
  for (auto& k : s) {
    k.kernelId = "0123456789abcdef0123";
    k.kernelName = "vecadd";
    k.deviceId = "NVIDIA H100 80GB HBM3|550.54";
  }
  std::vector<KernelSample> few(3, s[0]);  // too few to fit: the nearest-profile fallback
  for (auto& k : few) {
    k.kernelId = "feedfeedfeed";
    k.kernelName = "matmul";
    k.deviceId = "pthread-cpu";
    k.timestamp = static_cast<int64_t>(std::time(nullptr)) - 90 * 86400;  // old
  }
  bool ok = db.addKernelSamples(s) && db.addKernelSamples(few);
  for (uint64_t b = 4096; b <= (64u << 20); b *= 4)
    ok = ok && db.addTransferSample({"NVIDIA H100 80GB HBM3|550.54", Direction::H2D, true, b,
                                     7.5e-6 + double(b) / 54e9, 0});
  return ok ? 0 : 1;
}
