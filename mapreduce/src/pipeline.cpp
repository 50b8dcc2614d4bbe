// Pipeline: job assembly (user code + pipeline kernels) and the device prefix sum.
#include "pipeline_impl.h"

#include <algorithm>

namespace tutti::mr {

Pipeline::Pipeline(cl_context context, cl_device_id device, cl_command_queue queue, JobSpec spec,
                   Options options)
    : impl_(new Impl(context, device, queue, std::move(spec), options)) {
  // A record's key size and value size share 32 bits (common_kernels.cl, MR_SIZE_BITS).
  if (impl_->spec.keyBytes == 0 || impl_->spec.keyBytes % 4 || impl_->spec.keyBytes > 0xFFFF) {
    delete impl_;
    throw std::invalid_argument("tutti::mr: keyBytes must be a positive multiple of 4, below 65536");
  }
  if (impl_->spec.valueBytes == 0 || impl_->spec.valueBytes > 0xFFFF) {
    delete impl_;
    throw std::invalid_argument("tutti::mr: valueBytes must be 1 to 65535");
  }
}

Pipeline::~Pipeline() { delete impl_; }

void Pipeline::Impl::buildJob(const std::string& pipelineSource, const std::string& extraDefines) {
  scanGroup = std::min<size_t>(256, floorPow2(cl.deviceGroupSize()));
  std::string defines = "-DMR_KEY_BYTES=" + std::to_string(spec.keyBytes) +
                        " -DMR_VALUE_BYTES=" + std::to_string(spec.valueBytes) +
                        " -DMR_HAS_REDUCE=" + std::to_string(spec.hasReduce ? 1 : 0) +
                        " -DMR_REDUCE_PHASE=" + std::to_string(spec.reducePhase ? 1 : 0) +
                        " -DMR_COMBINER=" + std::to_string(spec.hasCombiner ? 1 : 0) +
                        " -DMR_SCAN_WG=" + std::to_string(scanGroup) + " -DMR_SCAN_PER_ITEM=4 " +
                        extraDefines;
  // The value size the host was told must be the device's: a mismatch fails the build.
  std::string source = "typedef struct mr_emitter mr_emitter;\n" + spec.types +
                       "\ntypedef char mr_value_size_check[sizeof(mr_value_t) == MR_VALUE_BYTES ? 1 : -1];\n"
                       "void mr_emit(mr_emitter* e, const uchar* key, uint keySize, const mr_value_t* value);\n"
                       "#if !MR_REDUCE_PHASE\n"
                       "void mr_emit_sized(mr_emitter* e, const uchar* key, uint keySize, const mr_value_t* value,"
                       " uint valueSize);\n"
                       "#endif\n"
                       "typedef struct mr_values mr_values;\n"
                       "bool mr_next_value(mr_values* values, mr_value_t* value);\n"
                       "void mr_reduce_list(const uchar* key, uint keySize, mr_values* values, mr_value_t* out);\n" +
                       spec.functions + "\n" + kCommonKernels + "\n" + kScanKernels + "\n" + pipelineSource;
  cl.build(source, defines);
  scanBlocks = cl.kernel("mr_scan_blocks");
  scanAdd = cl.kernel("mr_scan_add");
}

void Pipeline::Impl::exclusiveScan(cl_mem in, cl_mem out, uint32_t n, double* phase) {
  if (n == 0) return;
  const size_t block = scanGroup * 4, blocks = divUp(n, block);
  cl_mem sums = cl.buffer(blocks * 4);
  cl.args(scanBlocks, in, out, n, sums);
  cl.launch(scanBlocks, blocks * scanGroup, scanGroup, phase);
  if (blocks == 1) return;
  cl_mem offsets = cl.buffer(blocks * 4);
  exclusiveScan(sums, offsets, (uint32_t)blocks, phase);
  cl.args(scanAdd, out, n, offsets);
  cl.launch(scanAdd, divUp(n, scanGroup) * scanGroup, scanGroup, phase);
}

uint32_t Pipeline::Impl::scanTotal(cl_mem counts, cl_mem offsets, uint32_t n, double* phase) {
  if (n == 0) return 0;
  exclusiveScan(counts, offsets, n, phase);
  return readUint(offsets, n - 1, phase) + readUint(counts, n - 1, phase);
}

size_t Pipeline::Impl::mapGroupSize(const char* kernel) {
  return opt.mapGroupSize ? opt.mapGroupSize : std::min<size_t>(256, floorPow2(cl.kernelGroupSize(cl.kernel(kernel))));
}

Pipeline::Impl& Pipeline::beginRun() {
  times_ = {};
  stats_ = {};
  impl_->cl.resetPeak();
  return *impl_;
}

Output Pipeline::finishRun(Output out) {
  stats_.output = out.count;
  stats_.peakBufferBytes = impl_->cl.peakBytes();
  impl_->cl.settle(onKernelEvent);
  impl_->cl.releaseBuffers();
  return out;
}

uint32_t Pipeline::Impl::readUint(cl_mem m, size_t index, double* phase) {
  uint32_t v = 0;
  cl.read(m, 4, &v, phase, index * 4);
  return v;
}

Records makeRecords(ClRunner& cl, const JobSpec& spec, size_t count, bool withChains, bool withKeys) {
  return {cl.buffer(withKeys ? count * spec.keyBytes : 0), cl.buffer(count * 8), cl.buffer(count * spec.valueBytes),
          cl.buffer(withChains && !spec.hasCombiner ? count * 8 : 0)};
}

Output download(ClRunner& cl, const JobSpec& spec, const Records& r, size_t count, double* phase) {
  Output out;
  out.count = count;
  out.keyBytes = spec.keyBytes;
  out.valueBytes = spec.valueBytes;
  out.keys.resize(count * spec.keyBytes);
  out.values.resize(count * spec.valueBytes);
  std::vector<uint32_t> info(count * 2);
  // One wait for the three (each blocking read is a round trip to the device).
  cl.readAsync(r.keys, out.keys.size(), out.keys.data(), phase);
  cl.readAsync(r.info, info.size() * 4, info.data(), phase);
  cl.readAsync(r.vals, out.values.size(), out.values.data(), phase);
  cl.finish();
  out.keySizes.resize(count);
  out.valueSizes.resize(count);
  for (size_t i = 0; i < count; ++i) {
    // Map-only records carry their value's size above the key's (mr_emit_sized).
    out.keySizes[i] = spec.reducePhase ? info[2 * i] : info[2 * i] & 0xFFFF;
    out.valueSizes[i] = spec.reducePhase ? spec.valueBytes : info[2 * i] >> 16;
  }
  return out;
}

}  // namespace tutti::mr
