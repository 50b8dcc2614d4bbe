// interval_set.h - a set of half-open byte ranges; the validity record of one replica.
#pragma once
#include <cstddef>
#include <map>
#include <vector>

namespace tutti {

struct Range {
  size_t begin = 0, end = 0;  // [begin, end)
  size_t size() const { return end - begin; }
  bool empty() const { return end <= begin; }
  bool operator==(const Range &o) const { return begin == o.begin && end == o.end; }
};

class IntervalSet {
 public:
  void add(Range r);
  void remove(Range r);
  void clear() { m_.clear(); }
  bool contains(Range r) const;            // every byte of r is in the set
  bool intersects(Range r) const;
  std::vector<Range> missing(Range r) const;  // the parts of r not in the set
  std::vector<Range> present(Range r) const;  // the parts of r in the set
  size_t presentBytes(Range r) const;         // their size, without the list
  size_t bytes() const;
  bool empty() const { return m_.empty(); }
  std::vector<Range> ranges() const;

 private:
  std::map<size_t, size_t> m_;  // begin -> end, disjoint, non-adjacent
};

}  // namespace tutti
