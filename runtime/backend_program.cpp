// backend_program.cpp - real programs on one backing device: create, build, query.
//
// Thin, named wrappers over the driver's program calls, so that interpose/ only
// validates and translates (issue 16) and each driver quirk is handled in one place.
#include "backend_program.h"

#include "icd.h"

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
