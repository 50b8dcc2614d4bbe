// program_binary.cpp - (de)serialization of the program container; every length is
// checked against the remaining bytes, so garbage input is rejected, never read past.
#include "program_binary.h"

#include <cstring>

namespace tutti {

namespace {
const char kMagic[8] = {'T', 'U', 'T', 'T', 'I', 'B', 'I', 'N'};
const uint32_t kVersion = 1;

void put32(std::vector<unsigned char> &o, uint32_t v) {
  for (int i = 0; i < 4; ++i) o.push_back((v >> (8 * i)) & 0xff);
}
void put64(std::vector<unsigned char> &o, uint64_t v) {
  for (int i = 0; i < 8; ++i) o.push_back((v >> (8 * i)) & 0xff);
}
void putBytes(std::vector<unsigned char> &o, const void *p, size_t n) {
  put64(o, n);
  o.insert(o.end(), static_cast<const unsigned char *>(p), static_cast<const unsigned char *>(p) + n);
}

struct Reader {
  const unsigned char *p;
  size_t left;
  bool ok = true;
  uint64_t get(int bytes) {
    if (left < size_t(bytes)) { ok = false; return 0; }
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
    p += bytes;
    left -= bytes;
    return v;
  }
  bool bytes(std::vector<unsigned char> &out) {
    uint64_t n = get(8);
    if (!ok || n > left) return ok = false;
    out.assign(p, p + n);
    p += n;
    left -= n;
    return true;
  }
  bool str(std::string &out) {
    std::vector<unsigned char> b;
    if (!bytes(b)) return false;
    out.assign(b.begin(), b.end());
    return true;
  }
};
}  // namespace

std::vector<unsigned char> ProgramBinary::serialize() const {
  std::vector<unsigned char> o(kMagic, kMagic + 8);
  put32(o, kVersion);
  putBytes(o, source.data(), source.size());
  putBytes(o, options.data(), options.size());
  put32(o, uint32_t(entries.size()));
  for (const Entry &e : entries) {
    putBytes(o, e.deviceKey.data(), e.deviceKey.size());
    put32(o, e.binaryType);
    putBytes(o, e.bytes.data(), e.bytes.size());
  }
  return o;
}

bool ProgramBinary::parse(const unsigned char *data, size_t size) {
  if (!data || size < 12 || std::memcmp(data, kMagic, 8) != 0) return false;
  Reader r{data + 8, size - 8};
  if (r.get(4) != kVersion) return false;
  ProgramBinary pb;
  if (!r.str(pb.source) || !r.str(pb.options)) return false;
  uint64_t n = r.get(4);
  if (!r.ok || n > 4096) return false;
  for (uint64_t i = 0; i < n; ++i) {
    Entry e;
    if (!r.str(e.deviceKey)) return false;
    e.binaryType = uint32_t(r.get(4));
    if (!r.ok || !r.bytes(e.bytes)) return false;
    pb.entries.push_back(std::move(e));
  }
  if (r.left != 0) return false;
  *this = std::move(pb);
  return true;
}

}  // namespace tutti
