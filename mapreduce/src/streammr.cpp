// StreamMR pipeline (thesis §4.3): map into per-work-group regions, overflow pass,
// per-region grouping into hash tables, multi-level joining, final compaction.
#include "pipeline_impl.h"

#include <algorithm>

namespace tutti::mr {

namespace {

// Groups the map output into per-region hash tables, joins them level by level into one
// table, and compacts it. Returns the result on the host.
Output groupJoinCompact(Pipeline::Impl& m, PhaseTimes& times, Stats& stats, size_t groupWg,
                        const Records& first, const Records& over, cl_mem wgTotal,
                        uint32_t groups, uint32_t overflow) {
  ClRunner& cl = m.cl;
  const JobSpec& spec = m.spec;
  const uint32_t C = m.opt.regionRecords, NB = m.opt.buckets, F = m.opt.joinFanIn;
  const uint32_t overflowTables = (uint32_t)divUp(overflow, C), tables = groups + overflowTables;
  stats.tables = tables;
  // Bucket lists are indexed by bucket * tables + table in 32-bit kernels.
  if ((uint64_t)NB * tables >= (1ull << 31))
    throw std::invalid_argument("tutti::mr: buckets x tables (" + std::to_string(NB) + " x " +
                                std::to_string(tables) + ") exceeds 2^31; use fewer buckets or larger regions");

  // Per-region hash tables: region r's unique keys at [r*C, ...), bucket lists by
  // (bucket * tables + r).
  Records grouped = makeRecords(cl, spec, (size_t)tables * C, true);
  cl_mem lstart = cl.buffer((size_t)NB * tables * 4), cnt = cl.buffer((size_t)NB * tables * 4);
  cl.zero(cnt, (size_t)NB * tables * 4, &times.group);
  // Without a combiner every key keeps its values: sorted segments per region, chained
  // across tables by the joins (segNext indexes the grouped records).
  const bool chains = !spec.hasCombiner;
  const size_t segCount = chains ? (size_t)tables * C : 0;
  cl_mem segVals = cl.buffer(segCount * spec.valueBytes), segs = cl.buffer(segCount * 8),
         segNext = cl.buffer(segCount * 4);
  if (chains) cl.fill(segNext, segCount * 4, 0xFFFFFFFFu, &times.group);
  cl_kernel group = cl.kernel("mr_group");
  cl.args(group, first.keys, first.info, first.vals, 1u, wgTotal, 0u, 0u, tables, grouped.keys,
          grouped.info, grouped.vals, lstart, cnt, segVals, segs, grouped.links);
  cl.launch(group, (size_t)groups * groupWg, groupWg, &times.group);
  if (overflowTables) {
    cl.args(group, over.keys, over.info, over.vals, 0u, wgTotal, overflow, groups, tables,
            grouped.keys, grouped.info, grouped.vals, lstart, cnt, segVals, segs, grouped.links);
    cl.launch(group, (size_t)overflowTables * groupWg, groupWg, &times.group);
  }

  // Joining: each level merges F tables' bucket lists into one, until one table is left.
  Records lists = grouped;
  uint32_t tablesIn = tables;
  if (tablesIn > 1) {
    const uint32_t n = NB * tablesIn;
    cl_mem offsets = cl.buffer((size_t)n * 4);
    const uint32_t total = m.scanTotal(cnt, offsets, n, &times.join);
    Records ping = makeRecords(cl, spec, total, true), pong = makeRecords(cl, spec, total, true);
    cl_mem base = offsets;
    cl_kernel join = cl.kernel("mr_join");
    while (tablesIn > 1) {
      const uint32_t tablesOut = (uint32_t)divUp(tablesIn, F);
      cl_mem lstartOut = cl.buffer((size_t)NB * tablesOut * 4), cntOut = cl.buffer((size_t)NB * tablesOut * 4);
      cl.args(join, lists.keys, lists.info, lists.vals, lstart, cnt, base, tablesIn, tablesOut,
              ping.keys, ping.info, ping.vals, lstartOut, cntOut, lists.links, ping.links, segNext);
      const size_t items = (size_t)NB * tablesOut, wg = 64;
      cl.launch(join, divUp(items, wg) * wg, wg, &times.join);
      lists = ping;
      std::swap(ping, pong);
      lstart = base = lstartOut;
      cnt = cntOut;
      tablesIn = tablesOut;
      ++stats.joinLevels;
    }
  }

  // Compaction of the one table left: its bucket lists, back to back.
  cl_mem outBase = cl.buffer((size_t)NB * 4);
  const uint32_t count = m.scanTotal(cnt, outBase, NB, &times.compact);
  Records dst = makeRecords(cl, spec, count);
  cl_kernel compact = cl.kernel("mr_compact_buckets");
  cl_mem srcOf = cl.buffer(chains ? (size_t)count * 4 : 0);
  cl.args(compact, lists.keys, lists.info, lists.vals, lstart, cnt, outBase, dst.keys, dst.info,
          dst.vals, srcOf);
  cl.launch(compact, divUp(NB, 64) * 64, 64, &times.compact);
  if (chains) {
    cl_kernel reduce = cl.kernel("mr_reduce_lists");
    cl.args(reduce, dst.keys, dst.info, dst.vals, srcOf, count, lists.links, segNext, segs, segVals);
    cl.launch(reduce, divUp(count, 64) * 64, 64, &times.compact);
  }
  return download(cl, spec, dst, count, &times.download);
}

}  // namespace

StreamMR::StreamMR(cl_context context, cl_device_id device, cl_command_queue queue, JobSpec spec,
                   Options options)
    : Pipeline(context, device, queue, std::move(spec), options) {
  Impl& m = *impl_;
  const unsigned C = m.opt.regionRecords;
  if (C < 2 || (C & (C - 1))) throw std::invalid_argument("tutti::mr: regionRecords must be a power of two");
  if (m.opt.joinFanIn < 2) throw std::invalid_argument("tutti::mr: joinFanIn must be at least 2");
  // The grouping work-group sorts a whole region in local memory; its size must divide C.
  size_t groupWg = std::min<size_t>({256, C, floorPow2(m.cl.deviceGroupSize())});
  for (;;) {
    std::string defines = "-DMR_CAPACITY=" + std::to_string(C) + " -DMR_BUCKETS=" +
                          std::to_string(m.opt.buckets) + " -DMR_FANIN=" +
                          std::to_string(m.opt.joinFanIn) + " -DMR_GROUP_WG=" + std::to_string(groupWg);
    m.buildJob(kStreamMrKernels, defines);
    if (!m.spec.reducePhase) break;
    size_t fits = m.cl.kernelGroupSize(m.cl.kernel("mr_group"));
    if (fits >= groupWg) break;
    groupWg = floorPow2(fits);  // rebuild: MR_GROUP_WG sizes a local array
  }
  groupWg_ = groupWg;
  mapWg_ = m.mapGroupSize("mr_map_pass");
}

Output StreamMR::run(cl_mem input, cl_mem params, uint32_t numTasks) {
  Impl& m = beginRun();
  ClRunner& cl = m.cl;
  const JobSpec& spec = m.spec;
  const uint32_t C = m.opt.regionRecords;
  if (numTasks == 0) return finishRun(download(cl, spec, {}, 0, &times_.download));
  cl_kernel mapPass = cl.kernel("mr_map_pass"), mapOverflow = cl.kernel("mr_map_overflow");

  // Map, first pass: every work-group writes into its own region of C records.
  const uint32_t groups = (uint32_t)divUp(numTasks, mapWg_);
  Records first = makeRecords(cl, spec, (size_t)groups * C);
  cl_mem wgTotal = cl.buffer(groups * 4), taskWritten = cl.buffer((size_t)numTasks * 4);
  cl.args(mapPass, input, params, numTasks, first.keys, first.info, first.vals, wgTotal, taskWritten);
  cl.launch(mapPass, (size_t)groups * mapWg_, mapWg_, &times_.map);
  std::vector<uint32_t> totals(groups);
  cl.read(wgTotal, groups * 4, totals.data(), &times_.map);

  // Overflow pass where a region ran out: exact ranges from the counted totals.
  std::vector<uint32_t> ovBase(groups), written(groups);
  uint64_t overflow = 0, writtenAll = 0;
  for (uint32_t g = 0; g < groups; ++g) {
    ovBase[g] = (uint32_t)overflow;
    written[g] = (uint32_t)writtenAll;
    overflow += totals[g] > C ? totals[g] - C : 0;
    writtenAll += std::min(totals[g], C);
    stats_.emitted += totals[g];
  }
  stats_.overflowed = overflow;
  Records over = makeRecords(cl, spec, overflow);
  if (overflow) {
    cl_mem ovBaseBuf = cl.buffer(groups * 4);
    cl.write(ovBaseBuf, groups * 4, ovBase.data(), &times_.overflow);
    cl.args(mapOverflow, input, params, numTasks, over.keys, over.info, over.vals, wgTotal,
            ovBaseBuf, taskWritten);
    cl.launch(mapOverflow, (size_t)groups * mapWg_, mapWg_, &times_.overflow);
  }

  Output out;
  if (!spec.reducePhase) {
    // Map-only: the regions' written records, then the overflow records, contiguously.
    const size_t count = writtenAll + overflow;
    Records dst = makeRecords(cl, spec, count);
    cl_mem outBase = cl.buffer(groups * 4);
    cl.write(outBase, groups * 4, written.data(), &times_.compact);
    cl_kernel compact = cl.kernel("mr_compact_regions");
    cl.args(compact, first.keys, first.info, first.vals, wgTotal, outBase, dst.keys, dst.info, dst.vals);
    cl.launch(compact, (size_t)groups * C, std::min<size_t>(C, groupWg_), &times_.compact);
    cl.copy(over.keys, dst.keys, overflow * spec.keyBytes, writtenAll * spec.keyBytes, &times_.compact);
    cl.copy(over.info, dst.info, overflow * 8, writtenAll * 8, &times_.compact);
    cl.copy(over.vals, dst.vals, overflow * spec.valueBytes, writtenAll * spec.valueBytes, &times_.compact);
    out = download(cl, spec, dst, count, &times_.download);
  } else {
    out = groupJoinCompact(m, times_, stats_, groupWg_, first, over, wgTotal, groups, (uint32_t)overflow);
  }
  return finishRun(std::move(out));
}

}  // namespace tutti::mr
