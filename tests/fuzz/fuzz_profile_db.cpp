// fuzz_profile_db.cpp - libFuzzer target: profile databases and the models fitted from them.
//
// Two kinds of input (issue 21). One that starts with SQLite's magic is written out as a
// database file and opened, as TUTTI_PROFILE_DB may name a damaged or foreign file. Any
// other is read as records: kernel and transfer samples with hostile values (NaN, inf,
// negative and huge times, counts and sizes, odd strings), written through the API. Either
// way every kernel and device found is read back, exported and fitted, and each model asked
// for predictions: errors may be reported, nothing may crash, and every prediction is a
// number or NaN, never a trap.
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <tutti/profile_db.h>
#include <tutti/time_model.h>
#include <tutti/transfer_model.h>

using namespace tutti::profiles;

namespace {

struct Reader {
  const uint8_t *p;
  size_t n;
  template <class T>
  T take() {
    T v{};
    size_t k = n < sizeof v ? n : sizeof v;
    std::memcpy(&v, p, k);
    p += k, n -= k;
    return v;
  }
  std::string str() {
    size_t len = take<uint8_t>() % 12;
    std::string s;
    for (size_t i = 0; i < len && n; ++i) s += char(take<uint8_t>());
    return s;
  }
};

std::string tempPath() {
  static std::string path = [] {
    char tmpl[] = "/tmp/tutti-fuzz-db-XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd >= 0) close(fd);
    return std::string(tmpl);
  }();
  return path;
}

// Every model is also read back through the fit cache: a stored fit (the database's own, or
// the fuzz input taken as one) may be refused, never crash, and predicts no negative time.
void checkLoaded(const std::string &text, const std::vector<KernelSample> &s) {
  TimeModel back;
  if (!TimeModel::load(text, s, &back)) return;
  (void)back.describe();
  for (const KernelSample &x : s)
    if (back.valid() && back.predict(x.groups, x.features) < 0) std::abort();
}

void readEverything(ProfileDB &db, const std::string &input) {
  (void)db.exportJson();
  for (const KernelSummary &k : db.kernels()) {
    std::vector<KernelSample> s = db.kernelSamples(k.kernelId, k.deviceId);
    if (s.empty()) continue;
    TimeModel m = TimeModel::fit(s);
    (void)m.describe();
    for (const KernelSample &x : s)
      if (m.valid() && m.predict(x.groups, x.features) < 0) std::abort();  // "never negative"
    checkLoaded(db.fittedModel(k.kernelId, k.deviceId).model, s);
    if (db.storeFittedModel(k.kernelId, k.deviceId, TimeModel::fitKey(s), m.save()))
      checkLoaded(db.fittedModel(k.kernelId, k.deviceId).model, s);
    checkLoaded(input, s);
  }
  for (const DeviceSummary &d : db.devices()) {
    std::vector<TransferSample> t = db.transferSamples(d.deviceId);
    if (t.empty()) continue;
    TransferModel m = TransferModel::fit(t, d.deviceId);
    (void)m.describe();
    for (Direction dir : {Direction::H2D, Direction::D2H})
      for (bool pinned : {false, true})
        if (m.get(dir, pinned).seconds(4096) < 0) std::abort();  // a copy never takes negative time
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string path = tempPath();
  std::remove(path.c_str());
  if (size >= 16 && std::memcmp(data, "SQLite format 3", 15) == 0) {
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) return 0;
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    ProfileDB db;
    if (db.open(path)) readEverything(db, std::string(reinterpret_cast<const char *>(data), size));
    return 0;
  }
  ProfileDB db;
  if (!db.open(path)) return 0;
  Reader r{data, size};
  std::vector<KernelSample> ks;
  std::vector<TransferSample> ts;
  while (r.n) {
    if (r.take<uint8_t>() & 1) {
      KernelSample s;
      s.kernelId = "k" + r.str();
      s.kernelName = r.str();
      s.deviceId = "d" + std::to_string(r.take<uint8_t>() % 3);
      s.workDim = r.take<uint8_t>();
      for (unsigned d = 0; d < 3; ++d) s.global[d] = r.take<uint64_t>(), s.local[d] = r.take<uint16_t>();
      s.totalGroups = r.take<uint32_t>();
      s.groups = r.take<uint32_t>();
      for (int f = r.take<uint8_t>() % 4; f > 0; --f) s.features[r.str()] = r.take<double>();
      s.seconds = r.take<double>();
      ks.push_back(s);
    } else {
      TransferSample t;
      t.deviceId = "d" + std::to_string(r.take<uint8_t>() % 3);
      t.direction = r.take<uint8_t>() & 1 ? Direction::D2H : Direction::H2D;
      t.pinned = r.take<uint8_t>() & 1;
      t.bytes = r.take<uint64_t>();
      t.seconds = r.take<double>();
      ts.push_back(t);
    }
  }
  db.addKernelSamples(ks);
  db.addTransferSamples(ts);
  readEverything(db, std::string(reinterpret_cast<const char *>(data), size));
  return 0;
}
