// MapCG-style pipeline: global atomic slots, one shared hash table, reduce over its chains.
#include "pipeline_impl.h"

#include <algorithm>

namespace tutti::mr {

MapCG::MapCG(cl_context context, cl_device_id device, cl_command_queue queue, JobSpec spec,
             Options options)
    : Pipeline(context, device, queue, std::move(spec), options) {
  Impl& m = *impl_;
  m.buildJob(kMapCgKernels, "-DMR_BUCKETS=" + std::to_string(m.opt.buckets) +
                                " -DMR_MAPCG_INSERT=" + std::to_string(m.spec.reducePhase ? 1 : 0));
  wg_ = m.mapGroupSize("mapcg_map");
}

Output MapCG::run(cl_mem input, cl_mem params, uint32_t numTasks) {
  Impl& m = beginRun();
  ClRunner& cl = m.cl;
  const JobSpec& spec = m.spec;
  const uint32_t NB = m.opt.buckets;
  const size_t wg = wg_, items = divUp(numTasks, wg) * wg;

  // The record pool: a guess (or what the last run needed); too small, and the map runs
  // again with the size its global counter reached.
  uint32_t capacity = (uint32_t)std::max<uint64_t>(poolHint_, std::max<uint32_t>(numTasks, 1024) * 2ull);
  cl_mem counter = cl.buffer(4);
  cl_kernel map = cl.kernel("mapcg_map");
  Records rec;
  cl_mem table = nullptr;
  uint32_t total = 0;
  for (;;) {
    rec = makeRecords(cl, spec, capacity);
    table = cl.buffer(((size_t)NB + 2ull * capacity) * 4);
    cl.zero(counter, 4, &times_.map);
    cl.fill(table, (size_t)NB * 4, 0xFFFFFFFFu, &times_.map);
    cl.args(map, input, params, numTasks, rec.keys, rec.info, rec.vals, counter, capacity, table);
    cl.launch(map, items, wg, &times_.map);
    total = m.readUint(counter, 0, &times_.map);
    if (total <= capacity) break;
    stats_.overflowed += total - capacity;
    capacity = total;
  }
  poolHint_ = total;
  stats_.emitted = total;

  Output out;
  if (!spec.reducePhase) {
    out = download(cl, spec, rec, total, &times_.download);
  } else {
    cl_mem perBucket = cl.buffer((size_t)NB * 4), outBase = cl.buffer((size_t)NB * 4);
    cl_kernel count = cl.kernel("mapcg_count"), reduce = cl.kernel("mapcg_reduce");
    const size_t bitems = divUp(NB, 64) * 64;
    cl.args(count, table, perBucket);
    cl.launch(count, bitems, 64, &times_.join);
    const uint32_t unique = m.scanTotal(perBucket, outBase, NB, &times_.join);
    Records dst = makeRecords(cl, spec, unique);
    cl.args(reduce, rec.keys, rec.info, rec.vals, table, capacity, outBase, dst.keys, dst.info, dst.vals);
    cl.launch(reduce, bitems, 64, &times_.join);
    out = download(cl, spec, dst, unique, &times_.download);
  }
  stats_.tables = spec.reducePhase ? 1 : 0;
  return finishRun(std::move(out));
}

}  // namespace tutti::mr
