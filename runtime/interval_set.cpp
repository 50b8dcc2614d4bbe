// interval_set.cpp - disjoint, coalesced range map.
#include "interval_set.h"

#include <algorithm>

namespace tutti {

// add and remove return early when nothing changes: a launch re-marks the same bytes valid
// on the same device every time, and a map node erased and made again is two allocations.
void IntervalSet::add(Range r) {
  if (r.empty() || contains(r)) return;
  auto it = m_.upper_bound(r.begin);
  if (it != m_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= r.begin) {  // overlaps or touches the previous one
      r.begin = prev->first;
      r.end = std::max(r.end, prev->second);
      it = m_.erase(prev);
    }
  }
  while (it != m_.end() && it->first <= r.end) {
    r.end = std::max(r.end, it->second);
    it = m_.erase(it);
  }
  m_.emplace(r.begin, r.end);
}

void IntervalSet::remove(Range r) {
  if (r.empty() || !intersects(r)) return;
  auto it = m_.upper_bound(r.begin);
  if (it != m_.begin()) --it;
  while (it != m_.end() && it->first < r.end) {
    size_t b = it->first, e = it->second;
    if (e <= r.begin) { ++it; continue; }
    it = m_.erase(it);
    if (b < r.begin) m_.emplace(b, r.begin);
    if (e > r.end) { m_.emplace(r.end, e); break; }
  }
}

bool IntervalSet::contains(Range r) const {
  if (r.empty()) return true;
  auto it = m_.upper_bound(r.begin);
  if (it == m_.begin()) return false;
  --it;
  return it->first <= r.begin && it->second >= r.end;
}

bool IntervalSet::intersects(Range r) const {
  if (r.empty()) return false;
  auto it = m_.lower_bound(r.end);  // first interval starting at or after r.end
  if (it == m_.begin()) return false;
  --it;
  return it->second > r.begin;
}

std::vector<Range> IntervalSet::present(Range r) const {
  std::vector<Range> out;
  if (r.empty()) return out;
  auto it = m_.upper_bound(r.begin);
  if (it != m_.begin()) --it;
  for (; it != m_.end() && it->first < r.end; ++it) {
    Range p{std::max(it->first, r.begin), std::min(it->second, r.end)};
    if (!p.empty()) out.push_back(p);
  }
  return out;
}

size_t IntervalSet::presentBytes(Range r) const {
  size_t n = 0;
  if (r.empty()) return n;
  auto it = m_.upper_bound(r.begin);
  if (it != m_.begin()) --it;
  for (; it != m_.end() && it->first < r.end; ++it) {
    Range p{std::max(it->first, r.begin), std::min(it->second, r.end)};
    if (!p.empty()) n += p.size();
  }
  return n;
}

std::vector<Range> IntervalSet::missing(Range r) const {
  std::vector<Range> out;
  if (contains(r)) return out;  // the common case, without present()'s vector
  size_t cur = r.begin;
  for (const Range &p : present(r)) {
    if (p.begin > cur) out.push_back({cur, p.begin});
    cur = p.end;
  }
  if (cur < r.end) out.push_back({cur, r.end});
  return out;
}

size_t IntervalSet::bytes() const {
  size_t n = 0;
  for (auto &kv : m_) n += kv.second - kv.first;
  return n;
}

std::vector<Range> IntervalSet::ranges() const {
  std::vector<Range> out;
  for (auto &kv : m_) out.push_back({kv.first, kv.second});
  return out;
}

}  // namespace tutti
