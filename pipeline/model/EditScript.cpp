// The shortest edit script (Myers 1986): O((N+M)·D) time for sequences that differ in D
// lines, after their common prefix and suffix are set aside.
#include "EditScript.h"

#include <algorithm>

namespace ks {

EditScript shortestEdit(const std::vector<std::string>& a, const std::vector<std::string>& b,
                        int maxDistance) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  int pre = 0;
  while (pre < n && pre < m && a[pre] == b[pre]) ++pre;
  int suf = 0;
  while (suf < n - pre && suf < m - pre && a[n - 1 - suf] == b[m - 1 - suf]) ++suf;
  const int an = n - pre - suf, bm = m - pre - suf;
  auto same = [&](int x, int y) { return a[pre + x] == b[pre + y]; };

  std::vector<Edit> middle;
  const int maxD = std::min(an + bm, maxDistance);
  const int off = maxD + 1;
  std::vector<int> v(2 * maxD + 3, 0);
  std::vector<std::vector<int>> trace;  // trace[d][k + d]: furthest x on diagonal k after d edits
  int found = an == 0 && bm == 0 ? 0 : -1;
  for (int d = 0; d <= maxD && found < 0; ++d) {
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
                                                                       : v[off + k - 1] + 1;
      int y = x - k;
      while (x < an && y < bm && same(x, y)) ++x, ++y;
      v[off + k] = x;
      if (x >= an && y >= bm && found < 0) found = d;
    }
    trace.emplace_back(v.begin() + off - d, v.begin() + off + d + 1);
  }
  if (found < 0) {
    for (int i = 0; i < an; ++i) middle.push_back({EditOp::Delete, size_t(pre + i), 0});
    for (int j = 0; j < bm; ++j) middle.push_back({EditOp::Insert, 0, size_t(pre + j)});
  } else {
    int x = an, y = bm;
    for (int d = found; d > 0; --d) {
      const std::vector<int>& prev = trace[d - 1];  // indexed by k + d - 1
      const int k = x - y;
      auto at = [&](int kk) { return prev[kk + d - 1]; };
      const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));
      const int prevK = down ? k + 1 : k - 1;
      const int prevX = at(prevK), prevY = prevX - prevK;
      while (x > prevX && y > prevY)
        --x, --y, middle.push_back({EditOp::Equal, size_t(pre + x), size_t(pre + y)});
      if (down)
        middle.push_back({EditOp::Insert, 0, size_t(pre + prevY)});
      else
        middle.push_back({EditOp::Delete, size_t(pre + prevX), 0});
      x = prevX, y = prevY;
    }
    while (x > 0 && y > 0)
      --x, --y, middle.push_back({EditOp::Equal, size_t(pre + x), size_t(pre + y)});
    std::reverse(middle.begin(), middle.end());
  }
  EditScript script;
  script.complete = found >= 0;
  std::vector<Edit>& edits = script.edits;
  for (int i = 0; i < pre; ++i) edits.push_back({EditOp::Equal, size_t(i), size_t(i)});
  edits.insert(edits.end(), middle.begin(), middle.end());
  for (int i = 0; i < suf; ++i)
    edits.push_back({EditOp::Equal, size_t(n - suf + i), size_t(m - suf + i)});
  return script;
}

}  // namespace ks
