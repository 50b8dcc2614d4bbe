// backend_program.cpp - real programs on one backing device: create, build, query.
//
// Thin, named wrappers over the driver's program calls, so that interpose/ only
// validates and translates (issue 16) and each driver quirk is handled in one place.
#include "backend_program.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "icd.h"
#include "log.h"
#include "settings.h"

namespace tutti {

cl_program realProgramWithSource(cl_context c, const std::string &source) {
  const char *src = source.c_str();
  cl_int err = CL_SUCCESS;
  cl_program rp = icd(c).clCreateProgramWithSource(c, 1, &src, nullptr, &err);
  return err == CL_SUCCESS ? rp : nullptr;
}

cl_program realProgramWithBinary(cl_context c, cl_device_id d, const std::vector<unsigned char> &bin) {
  const unsigned char *b = bin.data();
  size_t len = bin.size();
  cl_int st = CL_SUCCESS, err = CL_SUCCESS;
  cl_program rp = icd(c).clCreateProgramWithBinary(c, 1, &d, &len, &b, &st, &err);
  if (rp && err == CL_SUCCESS) return rp;
  if (rp) icd(rp).clReleaseProgram(rp);
  return nullptr;
}

cl_int realBuild(cl_program rp, cl_device_id d, const std::string &options) {
  return icd(rp).clBuildProgram(rp, 1, &d, options.c_str(), nullptr, nullptr);
}

void realReleaseProgram(cl_program rp) { icd(rp).clReleaseProgram(rp); }

namespace {

constexpr char kBuildMagic[8] = {'T', 'U', 'T', 'B', 'L', 'D', '1', '\n'};

std::string buildCacheDir() {
  const std::string &s = settings().kernel_cache;
  if (s == "off") return "";
  if (!s.empty()) return s + "/builds";
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tutti/kernels/builds";
  if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tutti/kernels/builds";
  return "";
}

uint64_t fnv1a(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string entryPath(const std::string &dir, const std::string &key) {
  char name[32];
  std::snprintf(name, sizeof name, "/%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return dir + name;
}

void mkdirs(const std::string &dir) {
  for (size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
}

bool readPart(std::FILE *f, std::string &out) {
  uint64_t n = 0;
  if (std::fread(&n, sizeof n, 1, f) != 1 || n > (uint64_t(1) << 32)) return false;
  out.resize(n);
  return n == 0 || std::fread(&out[0], 1, n, f) == n;
}

void writePart(std::FILE *f, const void *p, uint64_t n) {
  std::fwrite(&n, sizeof n, 1, f);
  if (n) std::fwrite(p, 1, n, f);
}

// The cached binary and log of key; the file holds the whole key, so a hash collision
// is a miss.
bool loadEntry(const std::string &path, const std::string &key, std::vector<unsigned char> &bin,
               std::string &log) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[sizeof kBuildMagic];
  std::string k, b;
  bool ok = std::fread(magic, sizeof magic, 1, f) == 1 && !std::memcmp(magic, kBuildMagic, sizeof magic) &&
            readPart(f, k) && k == key && readPart(f, log) && readPart(f, b) && !b.empty();
  std::fclose(f);
  if (ok) bin.assign(b.begin(), b.end());
  return ok;
}

// Written whole under a temporary name and renamed, so a concurrent reader sees the old
// entry or the new one.
void storeEntry(const std::string &dir, const std::string &path, const std::string &key,
                const std::vector<unsigned char> &bin, const std::string &log) {
  mkdirs(dir);
  std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "-" +
                    std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()));
  std::FILE *f = std::fopen(tmp.c_str(), "wb");
  if (!f) return;
  std::fwrite(kBuildMagic, sizeof kBuildMagic, 1, f);
  writePart(f, key.data(), key.size());
  writePart(f, log.data(), log.size());
  writePart(f, bin.data(), bin.size());
  bool ok = std::fflush(f) == 0 && !std::ferror(f);
  ok = std::fclose(f) == 0 && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace

std::string buildCacheKey(const std::string &platformName, const std::string &deviceKey,
                          const std::string &options, const std::string &source) {
  // PoCL 3.1's binaries carry the kernels' names, argument info, work-group, local and
  // private memory sizes (compared field by field against a build from source), but not
  // CL_KERNEL_ATTRIBUTES (Kernel.AttributesReportReqdWorkGroupSize failed against a warm
  // cache): sources and options that name an __attribute__ are left to the driver. So
  // are sources that include files, which may change under the same source text (any
  // "include" at all, so "# include" and macros are covered too).
  if (platformName.find("Portable Computing Language") == std::string::npos) return "";
  for (const char *word : {"include", "attribute"})
    if (source.find(word) != std::string::npos || options.find(word) != std::string::npos) return "";
  std::string key = deviceKey;
  key += '\0';
  key += options;
  key += '\0';
  key += source;
  return key;
}

cl_int realBuildCached(cl_context c, cl_program &rp, cl_device_id d, const std::string &options,
                       const std::string &key, std::string *cachedLog, bool *fromCache) {
  *fromCache = false;
  std::string dir = key.empty() ? "" : buildCacheDir();
  if (dir.empty()) return realBuild(rp, d, options);
  std::string path = entryPath(dir, key);
  std::vector<unsigned char> bin;
  std::string log;
  if (loadEntry(path, key, bin, log)) {
    if (cl_program bp = realProgramWithBinary(c, d, bin)) {
      if (realBuild(bp, d, options) == CL_SUCCESS) {
        icd(rp).clReleaseProgram(rp);
        rp = bp;
        *cachedLog = std::move(log);
        *fromCache = true;
        return CL_SUCCESS;
      }
      icd(bp).clReleaseProgram(bp);
    }
    TUTTI_LOG(Info, "build cache entry %s refused by the driver; building from source", path.c_str());
  }
  cl_int err = realBuild(rp, d, options);
  if (err == CL_SUCCESS && realBinary(rp, bin)) storeEntry(dir, path, key, bin, realBuildLog(rp, d));
  return err;
}

cl_int realCompile(cl_program rp, cl_device_id d, const std::string &options, cl_uint numHeaders,
                   const cl_program *headers, const char **headerNames) {
  return icd(rp).clCompileProgram(rp, 1, &d, options.c_str(), numHeaders,
                                  numHeaders ? headers : nullptr,
                                  numHeaders ? headerNames : nullptr, nullptr, nullptr);
}

cl_program realLink(cl_context c, cl_device_id d, const std::string &options,
                    const std::string &fallback, const std::vector<cl_program> &inputs, cl_int *err) {
  cl_uint n = cl_uint(inputs.size());
  cl_program lp = icd(c).clLinkProgram(c, 1, &d, options.c_str(), n, inputs.data(), nullptr,
                                       nullptr, err);
  if (*err == CL_INVALID_LINKER_OPTIONS && options != fallback)
    lp = icd(c).clLinkProgram(c, 1, &d, fallback.c_str(), n, inputs.data(), nullptr, nullptr, err);
  return lp;
}

std::string realBuildLog(cl_program rp, cl_device_id d) {
  std::string s = driverString([&](size_t n, void *v, size_t *ret) {
    return icd(rp).clGetProgramBuildInfo(rp, d, CL_PROGRAM_BUILD_LOG, n, v, ret);
  });
  while (!s.empty() && (s.back() == '\0' || s.back() == '\n')) s.pop_back();
  return s;
}

bool realKernelNames(cl_program rp, std::vector<std::string> &out) {
  size_t n = 0;
  if (icd(rp).clGetProgramInfo(rp, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &n) != CL_SUCCESS)
    return false;
  std::string names(n, '\0');
  icd(rp).clGetProgramInfo(rp, CL_PROGRAM_KERNEL_NAMES, n, &names[0], nullptr);
  while (!names.empty() && names.back() == '\0') names.pop_back();
  size_t start = 0;
  while (start <= names.size() && !names.empty()) {
    size_t end = names.find(';', start);
    std::string k = names.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!k.empty()) out.push_back(k);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return true;
}

bool realBinary(cl_program rp, std::vector<unsigned char> &bytes) {
  size_t bs = 0;
  if (icd(rp).clGetProgramInfo(rp, CL_PROGRAM_BINARY_SIZES, sizeof bs, &bs, nullptr) != CL_SUCCESS ||
      !bs)
    return false;
  bytes.resize(bs);
  unsigned char *ptr = bytes.data();
  return icd(rp).clGetProgramInfo(rp, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) == CL_SUCCESS;
}

size_t realGlobalVariableTotalSize(cl_program rp, cl_device_id d) {
  size_t total = 0;
  icd(rp).clGetProgramBuildInfo(rp, d, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, sizeof total,
                                &total, nullptr);
  return total;
}

}  // namespace tutti
