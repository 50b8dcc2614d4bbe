// StreamMR pipeline (thesis §4.3): map into per-work-group regions, overflow pass,
// per-region grouping into hash tables, multi-level joining, final compaction.
#include "pipeline_impl.h"

#include <algorithm>

namespace tutti::mr {

namespace {

// Groups the map output into per-region hash tables, joins them level by level into one
// table, and compacts it into dst (on the device); returns its record count. `over` holds
// the overflow records (and a streamed run's result so far, merged like them); finalise:
// mr_reduce runs on each key (not on a streamed run's running result). whileGrouping runs
// once the grouping and the joins are queued, before the first wait for them: the joins'
// buffers then take the bound of the grouped records (tables x regionRecords) instead of
// the count the host would have to wait for.
uint32_t groupJoinCompact(Pipeline::Impl& m, PhaseTimes& times, Stats& stats, size_t groupWg,
                          const Records& first, const Records& over, cl_mem wgTotal,
                          uint32_t groups, uint32_t overflow, bool finalise, Records& dst,
                          const std::function<void()>& whileGrouping = nullptr) {
  ClRunner& cl = m.cl;
  const JobSpec& spec = m.spec;
  const uint32_t C = m.opt.regionRecords, NB = m.opt.buckets, F = m.opt.joinFanIn;
  const uint32_t overflowTables = (uint32_t)divUp(overflow, C), tables = groups + overflowTables;
  stats.tables += tables;
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
  if (groups) {
    cl.args(group, first.keys, first.info, first.vals, 1u, wgTotal, 0u, 0u, tables, grouped.keys,
            grouped.info, grouped.vals, lstart, cnt, segVals, segs, grouped.links);
    cl.launch(group, (size_t)groups * groupWg, groupWg, &times.group);
  }
  if (overflowTables) {
    cl.args(group, over.keys, over.info, over.vals, 0u, wgTotal, overflow, groups, tables,
            grouped.keys, grouped.info, grouped.vals, lstart, cnt, segVals, segs, grouped.links);
    cl.launch(group, (size_t)overflowTables * groupWg, groupWg, &times.group);
  }

  // Joining: each level merges F tables' bucket lists into one, until one table is left.
  // The keys stay in `grouped`: a level writes each record's key reference (refs), its
  // (size, hash) and its value, a third of a 32-byte key's record.
  Records lists = grouped;
  cl_mem refs = grouped.info;  // not read while direct
  cl_uint direct = 1;
  uint32_t tablesIn = tables;
  if (tablesIn > 1) {
    const uint32_t n = NB * tablesIn;
    cl_mem offsets = cl.buffer((size_t)n * 4);
    const uint64_t bound = (uint64_t)tables * C;
    uint32_t total;
    if (whileGrouping && bound < (1ull << 32)) {
      m.exclusiveScan(cnt, offsets, n, &times.join);
      total = (uint32_t)bound;
    } else {
      total = m.scanTotal(cnt, offsets, n, &times.join);
    }
    Records ping = makeRecords(cl, spec, total, true, false), pong = makeRecords(cl, spec, total, true, false);
    cl_mem pingRefs = cl.buffer((size_t)total * 4), pongRefs = cl.buffer((size_t)total * 4);
    cl_mem base = offsets;
    cl_kernel join = cl.kernel("mr_join");
    while (tablesIn > 1) {
      const uint32_t tablesOut = (uint32_t)divUp(tablesIn, F);
      cl_mem lstartOut = cl.buffer((size_t)NB * tablesOut * 4), cntOut = cl.buffer((size_t)NB * tablesOut * 4);
      cl.args(join, grouped.keys, refs, direct, lists.info, lists.vals, lstart, cnt, base, tablesIn, tablesOut,
              pingRefs, ping.info, ping.vals, lstartOut, cntOut, lists.links, ping.links, segNext);
      const size_t items = (size_t)NB * tablesOut, wg = 64;
      cl.launch(join, divUp(items, wg) * wg, wg, &times.join);
      lists = ping;
      refs = pingRefs;
      direct = 0;
      std::swap(ping, pong);
      std::swap(pingRefs, pongRefs);
      lstart = base = lstartOut;
      cnt = cntOut;
      tablesIn = tablesOut;
      ++stats.joinLevels;
    }
  }

  if (whileGrouping) whileGrouping();
  // Compaction of the one table left: its bucket lists, back to back.
  cl_mem outBase = cl.buffer((size_t)NB * 4);
  const uint32_t count = m.scanTotal(cnt, outBase, NB, &times.compact);
  dst = makeRecords(cl, spec, count);
  cl_kernel compact = cl.kernel("mr_compact_buckets");
  cl_mem srcOf = cl.buffer(chains ? (size_t)count * 4 : 0);
  const cl_uint fin = finalise ? 1u : 0u;
  cl.args(compact, grouped.keys, refs, direct, lists.info, lists.vals, lstart, cnt, outBase, dst.keys,
          dst.info, dst.vals, srcOf, fin);
  cl.launch(compact, divUp(NB, 64) * 64, 64, &times.compact);
  if (chains) {
    cl_kernel reduce = cl.kernel("mr_reduce_lists");
    cl.args(reduce, dst.keys, dst.info, dst.vals, srcOf, count, lists.links, segNext, segs, segVals);
    cl.launch(reduce, divUp(count, 64) * 64, 64, &times.compact);
  }
  return count;
}

}  // namespace

StreamMR::StreamMR(cl_context context, cl_device_id device, cl_command_queue queue, JobSpec spec,
                   Options options)
    : Pipeline(context, device, queue, std::move(spec), options) {
  Impl& m = *impl_;
  const unsigned C = m.opt.regionRecords;
  if (C < 2 || (C & (C - 1))) throw std::invalid_argument("tutti::mr: regionRecords must be a power of two");
  // A joining work-item keeps one bit per merged list (mr_join).
  if (m.opt.joinFanIn < 2 || m.opt.joinFanIn > 32)
    throw std::invalid_argument("tutti::mr: joinFanIn must be 2 to 32");
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

// The map's output: first-pass regions, overflow records and what each region wrote.
struct StreamMR::MapOut {
  Records first, over;
  cl_mem wgTotal = nullptr;
  uint32_t groups = 0;
  uint64_t overflow = 0, writtenAll = 0;
  std::vector<uint32_t> written;  // per region: records before it (map-only compaction)
  std::vector<uint32_t> ovBase;  // per region: overflow records before it
};

StreamMR::MapOut StreamMR::mapPhase(cl_mem input, cl_mem params, uint32_t numTasks,
                                    const std::function<void()>& whileMapping) {
  Impl& m = *impl_;
  ClRunner& cl = m.cl;
  const JobSpec& spec = m.spec;
  const uint32_t C = m.opt.regionRecords;
  MapOut o;
  if (numTasks == 0) {
    if (whileMapping) whileMapping();
    return o;
  }
  cl_kernel mapPass = cl.kernel("mr_map_pass"), mapOverflow = cl.kernel("mr_map_overflow");

  // Map, first pass: every work-group writes into its own region of C records.
  const uint32_t groups = o.groups = (uint32_t)divUp(numTasks, mapWg_);
  Records& first = o.first = makeRecords(cl, spec, (size_t)groups * C);
  cl_mem wgTotal = o.wgTotal = cl.buffer(groups * 4), taskWritten = cl.buffer((size_t)numTasks * 4);
  cl.args(mapPass, input, params, numTasks, first.keys, first.info, first.vals, wgTotal, taskWritten);
  cl.launch(mapPass, (size_t)groups * mapWg_, mapWg_, &times_.map);
  if (whileMapping) whileMapping();
  std::vector<uint32_t> totals(groups);
  cl.read(wgTotal, groups * 4, totals.data(), &times_.map);

  // Overflow pass where a region ran out: exact ranges from the counted totals.
  // Both are written without waiting (the next wait is a read, after the kernels using
  // them), so they live in the MapOut until the run ends.
  std::vector<uint32_t>& ovBase = o.ovBase;
  ovBase.resize(groups);
  o.written.resize(groups);
  for (uint32_t g = 0; g < groups; ++g) {
    ovBase[g] = (uint32_t)o.overflow;
    o.written[g] = (uint32_t)o.writtenAll;
    o.overflow += totals[g] > C ? totals[g] - C : 0;
    o.writtenAll += std::min(totals[g], C);
    stats_.emitted += totals[g];
  }
  stats_.overflowed += o.overflow;
  o.over = makeRecords(cl, spec, o.overflow);
  if (o.overflow) {
    cl_mem ovBaseBuf = cl.buffer(groups * 4);
    cl.writeAsync(ovBaseBuf, groups * 4, ovBase.data(), &times_.overflow);
    cl.args(mapOverflow, input, params, numTasks, o.over.keys, o.over.info, o.over.vals, wgTotal,
            ovBaseBuf, taskWritten);
    cl.launch(mapOverflow, (size_t)groups * mapWg_, mapWg_, &times_.overflow);
  }
  return o;
}

Output StreamMR::run(cl_mem input, cl_mem params, uint32_t numTasks) {
  Impl& m = beginRun();
  ClRunner& cl = m.cl;
  const JobSpec& spec = m.spec;
  const uint32_t C = m.opt.regionRecords;
  if (numTasks == 0) return finishRun(download(cl, spec, {}, 0, &times_.download));
  MapOut mo = mapPhase(input, params, numTasks, nullptr);
  const uint32_t groups = mo.groups;
  const uint64_t overflow = mo.overflow, writtenAll = mo.writtenAll;
  const Records &first = mo.first, &over = mo.over;

  Output out;
  if (!spec.reducePhase) {
    // Map-only: the regions' written records, then the overflow records, contiguously.
    const size_t count = writtenAll + overflow;
    Records dst = makeRecords(cl, spec, count);
    cl_mem outBase = cl.buffer(groups * 4);
    cl.writeAsync(outBase, groups * 4, mo.written.data(), &times_.compact);
    cl_kernel compact = cl.kernel("mr_compact_regions");
    cl.args(compact, first.keys, first.info, first.vals, mo.wgTotal, outBase, dst.keys, dst.info, dst.vals);
    cl.launch(compact, (size_t)groups * C, std::min<size_t>(C, groupWg_), &times_.compact);
    cl.copy(over.keys, dst.keys, overflow * spec.keyBytes, writtenAll * spec.keyBytes, &times_.compact);
    cl.copy(over.info, dst.info, overflow * 8, writtenAll * 8, &times_.compact);
    cl.copy(over.vals, dst.vals, overflow * spec.valueBytes, writtenAll * spec.valueBytes, &times_.compact);
    out = download(cl, spec, dst, count, &times_.download);
  } else {
    Records dst;
    const uint32_t count = groupJoinCompact(m, times_, stats_, groupWg_, first, over, mo.wgTotal, groups,
                                            (uint32_t)overflow, true, dst);
    out = download(cl, spec, dst, count, &times_.download);
  }
  return finishRun(std::move(out));
}

Output StreamMR::runStream(const std::function<bool(Chunk&)>& next) {
  Impl& m = beginRun();
  ClRunner& cl = m.cl;
  const JobSpec& spec = m.spec;
  if (!spec.reducePhase || !spec.hasCombiner)
    throw std::invalid_argument("tutti::mr: runStream needs a reduce phase with a combiner");
  chunks_ = 0;
  // A piece's device buffers: new ones, so that a kept piece's upload ahead of its turn
  // waits for none of the work queued before it (a spare's last reader may be running).
  struct Upload {
    cl_mem in = nullptr, par = nullptr;
  };
  auto upload = [&](const Chunk& c) {
    Upload u{cl.freshBuffer(c.inputBytes), cl.freshBuffer(c.paramBytes)};
    if (c.kept) {
      cl.writeAsync(u.in, c.inputBytes, c.input, &times_.preprocess);
      cl.writeAsync(u.par, c.paramBytes, c.params, &times_.preprocess);
    } else {
      // Blocking writes: the app may reuse the piece's memory for the next one.
      if (c.inputBytes) cl.write(u.in, c.inputBytes, c.input, &times_.preprocess);
      if (c.paramBytes) cl.write(u.par, c.paramBytes, c.params, &times_.preprocess);
    }
    return u;
  };
  Chunk cur, ahead;
  bool have = next(cur), more = false;
  Upload up, upAhead;
  if (have) up = upload(cur);
  Records acc;  // the result so far: distinct keys, combined values, not finalised
  Records merged;  // the result before this piece, once merged into acc
  uint32_t accCount = 0;
  while (have) {
    ++chunks_;
    const uint64_t mark = cl.bufferMark();
    // The next piece is read or made while this one maps. A kept one crosses while this
    // one groups and joins: both are queued before the host next waits (under Tutti the
    // app's thread makes the staged copy, beside the queued kernels). On a thread of its
    // own the copy would overlap the map too, but then a run on two PoCL devices with
    // forced staging crashed in later contexts (mr.api.tutti-aside, --gtest_repeat), as it
    // did with Tutti's old path for such writes.
    MapOut mo = mapPhase(up.in, up.par, cur.tasks, [&] { more = next(ahead); });
    bool sent = false;
    auto sendAhead = [&] {
      if (more && ahead.kept) upAhead = upload(ahead);
      sent = true;
    };
    // The result so far joins the overflow records: the grouping and joins merge it
    // with this piece's keys like any other table.
    const uint64_t extra = mo.overflow + accCount;
    if (extra >= (1ull << 32)) throw std::invalid_argument("tutti::mr: more than 2^32 records in one merge");
    Records over = mo.over;
    if (accCount) {
      over = makeRecords(cl, spec, extra);
      const size_t k = spec.keyBytes, v = spec.valueBytes, o = mo.overflow;
      if (o) {
        cl.copy(mo.over.keys, over.keys, o * k, 0, &times_.overflow);
        cl.copy(mo.over.info, over.info, o * 8, 0, &times_.overflow);
        cl.copy(mo.over.vals, over.vals, o * v, 0, &times_.overflow);
      }
      cl.copy(acc.keys, over.keys, size_t(accCount) * k, o * k, &times_.join);
      cl.copy(acc.info, over.info, size_t(accCount) * 8, o * 8, &times_.join);
      cl.copy(acc.vals, over.vals, size_t(accCount) * v, o * v, &times_.join);
    }
    if (mo.groups || extra) {
      Records dst;
      accCount = groupJoinCompact(m, times_, stats_, groupWg_, mo.first, over, mo.wgTotal, mo.groups,
                                  (uint32_t)extra, /*finalise=*/!more, dst,
                                  more && ahead.kept ? std::function<void()>(sendAhead) : nullptr);
      merged = acc;  // now part of dst
      acc = dst;
    }
    if (!sent) sendAhead();
    // This piece's buffers go (those made before the mark too: the piece's own uploads and
    // the result it merged); the result so far stays for the next merge, and so does the
    // next piece's upload.
    if (merged.keys) cl.release({merged.keys, merged.info, merged.vals, merged.links});
    cl.releaseSince(mark, {acc.keys, acc.info, acc.vals, acc.links, upAhead.in, upAhead.par});
    merged = {};
    cl.release({up.in, up.par});
    if (more) {
      cur = ahead;
      up = ahead.kept ? upAhead : upload(ahead);
      upAhead = {};
    }
    have = more;
  }
  return finishRun(download(cl, spec, acc, accCount, &times_.download));
}

}  // namespace tutti::mr
