// backend_program.h - real programs on one backing device: create, build, query.
//
// interpose/api_program.cpp decides what every slot of a virtual program gets; the
// driver calls that do it are here, so the API layer never calls a driver.
#pragma once
#include <CL/cl.h>

#include <string>
#include <vector>

namespace tutti {

// A real program from source on real context c, or nullptr when the driver refuses.
cl_program realProgramWithSource(cl_context c, const std::string &source);
// A real program from one device's binary, or nullptr when the driver refuses it.
cl_program realProgramWithBinary(cl_context c, cl_device_id d, const std::vector<unsigned char> &bin);

cl_int realBuild(cl_program rp, cl_device_id d, const std::string &options);
void realReleaseProgram(cl_program rp);

// The on-disk build cache (issue 17): PoCL preprocesses the whole OpenCL C header on every
// build, per device and one device at a time (50 ms a device on the 2-core dev VM), so a
// second backing device doubled a small app's build. A successful build leaves the
// driver's binary and its build log under the cache key; a later process with the same
// key builds from that binary. The key names the driver and device, the options and the
// source; it is empty (no caching) where a build could depend on more than those (an
// #include) or for drivers whose binaries were not checked to carry the argument info.
std::string buildCacheKey(const std::string &platformName, const std::string &deviceKey,
                          const std::string &options, const std::string &source);
// Builds rp for d. With a key whose earlier build is cached, rp is replaced by a program
// from the cached binary (the one given is released), *cachedLog gets that build's log
// and *fromCache is set; otherwise rp is built from its source and a success is cached.
cl_int realBuildCached(cl_context c, cl_program &rp, cl_device_id d, const std::string &options,
                       const std::string &key, std::string *cachedLog, bool *fromCache);
cl_int realCompile(cl_program rp, cl_device_id d, const std::string &options, cl_uint numHeaders,
                   const cl_program *headers, const char **headerNames);
// Links inputs for d; if the driver refuses options as linker options and they differ
// from fallback (Tutti's -cl-kernel-arg-info is a compile option), links with fallback.
cl_program realLink(cl_context c, cl_device_id d, const std::string &options,
                    const std::string &fallback, const std::vector<cl_program> &inputs, cl_int *err);

// The build log without trailing NULs and newlines ("" when there is none).
std::string realBuildLog(cl_program rp, cl_device_id d);
// The kernel names of a built program; false when the driver cannot tell.
bool realKernelNames(cl_program rp, std::vector<std::string> &names);
// The program's binary; false when it has none or the driver cannot give it.
bool realBinary(cl_program rp, std::vector<unsigned char> &bytes);
size_t realGlobalVariableTotalSize(cl_program rp, cl_device_id d);

}  // namespace tutti
