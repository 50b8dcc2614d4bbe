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
