// Mars-style pipeline: count, prefix sum, map, bitonic sort by key, reduce (seed 003).
#include "pipeline_impl.h"

#include <algorithm>

namespace tutti::mr {

Mars::Mars(cl_context context, cl_device_id device, cl_command_queue queue, JobSpec spec,
           Options options)
    : Pipeline(context, device, queue, std::move(spec), options) {
  Impl& m = *impl_;
  m.buildJob(kMarsKernels, "");
  wg_ = m.mapGroupSize("mars_map");
}

Output Mars::run(cl_mem input, cl_mem params, uint32_t numTasks) {
  Impl& m = beginRun();
  ClRunner& cl = m.cl;
  const JobSpec& spec = m.spec;
  const size_t wg = wg_, items = divUp(numTasks, wg) * wg;

  // Preprocessing: the map once to count, then each task's offset.
  cl_mem counts = cl.buffer((size_t)numTasks * 4), offsets = cl.buffer((size_t)numTasks * 4);
  cl_kernel count = cl.kernel("mars_map_count");
  cl.args(count, input, params, numTasks, counts);
  cl.launch(count, items, wg, &times_.preprocess);
  const uint32_t total = m.scanTotal(counts, offsets, numTasks, &times_.preprocess);
  stats_.emitted = total;

  Records rec = makeRecords(cl, spec, total);
  cl_kernel map = cl.kernel("mars_map");
  cl.args(map, input, params, numTasks, rec.keys, rec.info, rec.vals, counts, offsets);
  cl.launch(map, items, wg, &times_.map);

  Output out;
  if (!spec.reducePhase || total == 0) {
    out = download(cl, spec, rec, spec.reducePhase ? 0 : total, &times_.download);
  } else {
    // Grouping: sort record indices by key (bitonic, padded to a power of two).
    const uint32_t padded = floorPow2(total) == total ? total : 2 * floorPow2(total);
    cl_mem idx = cl.buffer((size_t)padded * 4);
    cl_kernel init = cl.kernel("mars_sort_init"), step = cl.kernel("mars_bitonic_step");
    cl.args(init, idx, total, padded);
    cl.launch(init, divUp(padded, wg) * wg, wg, &times_.group);
    const size_t half = padded / 2, swg = std::min<size_t>(wg, std::max<size_t>(half, 1));
    for (uint32_t size = 2; size <= padded; size <<= 1)
      for (uint32_t stride = size >> 1; stride > 0; stride >>= 1) {
        cl.args(step, rec.keys, rec.info, idx, size, stride);
        cl.launch(step, half, swg, &times_.group);
      }
    // Reduce: run heads, their output slots, one record per key.
    cl_mem head = cl.buffer((size_t)total * 4), outIndex = cl.buffer((size_t)total * 4);
    cl_kernel heads = cl.kernel("mars_heads"), reduce = cl.kernel("mars_reduce");
    const size_t titems = divUp(total, wg) * wg;
    cl.args(heads, rec.keys, rec.info, idx, total, head);
    cl.launch(heads, titems, wg, &times_.join);
    const uint32_t unique = m.scanTotal(head, outIndex, total, &times_.join);
    Records dst = makeRecords(cl, spec, unique);
    cl.args(reduce, rec.keys, rec.info, rec.vals, idx, total, head, outIndex, dst.keys, dst.info, dst.vals);
    cl.launch(reduce, titems, wg, &times_.join);
    out = download(cl, spec, dst, unique, &times_.download);
  }
  stats_.tables = spec.reducePhase ? 1 : 0;
  return finishRun(std::move(out));
}

}  // namespace tutti::mr
