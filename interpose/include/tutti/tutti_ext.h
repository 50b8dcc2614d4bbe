/* tutti_ext.h - Tutti's own extension entry points, reached without linking Tutti.
 *
 * An app (or a test) that wants Tutti's counters asks the platform for them:
 *   tuttiGetDeviceCounters_fn get = (tuttiGetDeviceCounters_fn)
 *       clGetExtensionFunctionAddressForPlatform(platform, "tuttiGetDeviceCounters");
 * The function is NULL when the platform is not Tutti, so apps stay portable.
 */
#ifndef TUTTI_EXT_H
#define TUTTI_EXT_H

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TUTTI_DEVICE_NAME_MAX 128

/* Per backing (real) device: what ran there and every byte moved to or from it. */
typedef struct tutti_device_counters {
  char name[TUTTI_DEVICE_NAME_MAX]; /* "<index>: <real device name> (<platform>)" */
  cl_device_type type;
  cl_ulong h2d_bytes;      /* host home -> device replica */
  cl_ulong d2h_bytes;      /* device replica -> host home */
  cl_ulong h2d_transfers;
  cl_ulong d2h_transfers;
  cl_ulong kernels;        /* kernel launches (whole or partial) run on this device */
  cl_ulong kernel_ns;      /* sum of END-START of those launches */
  cl_ulong device_copies;  /* buffer copies/fills executed on the device */
  cl_ulong staged_bytes;   /* of the app's copies, bytes sent through pinned staging */
  cl_ulong writes_aside;   /* the app's non-blocking writes staged beside the queued kernels */
} tutti_device_counters;

/* Fills up to num_entries records (one per backing device, in Tutti's device order);
 * *num_devices receives the number of backing devices. */
typedef cl_int (CL_API_CALL *tuttiGetDeviceCounters_fn)(
    cl_uint num_entries, tutti_device_counters *counters, cl_uint *num_devices);

/* Sets every counter back to zero (device names stay). */
typedef cl_int (CL_API_CALL *tuttiResetCounters_fn)(void);

/* Which backing device ran the kernel command behind `event` (-1 if none or unknown). */
typedef cl_int (CL_API_CALL *tuttiGetEventDevice_fn)(cl_event event, cl_int *device_index);

#ifdef __cplusplus
}
#endif

#endif /* TUTTI_EXT_H */
