// kernelscope/diff: what a stage's text became between two revisions, as a unified diff
// (Myers' O(ND) algorithm on lines), plus versioned virtual URIs for editors' diff views.
#include <algorithm>

#include "Features.h"

namespace ks::server {
namespace {

enum class Op : uint8_t { Equal, Delete, Insert };
struct Edit {
  Op op;
  size_t a, b;  // line indices into the old and new text (the one that applies)
};

// Beyond this many differences the diff is given as "everything replaced": a bound on
// time and memory for artifacts that changed wholesale.
constexpr int kMaxEditDistance = 4000;

/// The shortest edit script from `a` to `b`.
std::vector<Edit> myers(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  std::vector<Edit> edits;
  // Common prefix and suffix need no search.
  int pre = 0;
  while (pre < n && pre < m && a[pre] == b[pre]) ++pre;
  int suf = 0;
  while (suf < n - pre && suf < m - pre && a[n - 1 - suf] == b[m - 1 - suf]) ++suf;
  const int an = n - pre - suf, bm = m - pre - suf;
  auto A = [&](int i) { return a[pre + i]; };
  auto B = [&](int j) { return b[pre + j]; };

  std::vector<Edit> middle;
  const int maxD = std::min(an + bm, kMaxEditDistance);
  const int off = maxD + 1;
  std::vector<int> v(2 * maxD + 3, 0);
  std::vector<std::vector<int>> trace;
  bool found = an == 0 && bm == 0;
  int dFound = 0;
  for (int d = 0; d <= maxD && !found; ++d) {
    trace.push_back(v);
    for (int k = -d; k <= d; k += 2) {
      int x = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1]
                                                                         : v[off + k - 1] + 1;
      int y = x - k;
      while (x < an && y < bm && A(x) == B(y)) ++x, ++y;
      v[off + k] = x;
      if (x >= an && y >= bm) {
        found = true;
        dFound = d;
        break;
      }
    }
  }
  if (!found) {
    for (int i = 0; i < an; ++i) middle.push_back({Op::Delete, size_t(pre + i), 0});
    for (int j = 0; j < bm; ++j) middle.push_back({Op::Insert, 0, size_t(pre + j)});
  } else {
    int x = an, y = bm;
    for (int d = dFound; d >= 0 && (x > 0 || y > 0); --d) {
      const std::vector<int>& vd = trace[d];
      int k = x - y;
      int prevK = (k == -d || (k != d && vd[off + k - 1] < vd[off + k + 1])) ? k + 1 : k - 1;
      int prevX = d == 0 ? 0 : vd[off + prevK];
      int prevY = prevX - prevK;
      if (d == 0) prevY = 0;
      while (x > prevX && y > prevY) {
        --x, --y;
        middle.push_back({Op::Equal, size_t(pre + x), size_t(pre + y)});
      }
      if (d > 0) {
        if (x == prevX)
          middle.push_back({Op::Insert, 0, size_t(pre + y - 1)});
        else
          middle.push_back({Op::Delete, size_t(pre + x - 1), 0});
      }
      x = prevX, y = prevY;
    }
    std::reverse(middle.begin(), middle.end());
  }
  for (int i = 0; i < pre; ++i) edits.push_back({Op::Equal, size_t(i), size_t(i)});
  edits.insert(edits.end(), middle.begin(), middle.end());
  for (int i = 0; i < suf; ++i)
    edits.push_back({Op::Equal, size_t(n - suf + i), size_t(m - suf + i)});
  return edits;
}

}  // namespace

std::string unifiedDiff(std::string_view before, std::string_view after,
                        const std::string& beforeLabel, const std::string& afterLabel,
                        int context) {
  auto a = splitLines(before), b = splitLines(after);
  std::vector<Edit> edits = myers(a, b);
  std::string out;
  size_t i = 0;
  const size_t ctx = static_cast<size_t>(std::max(context, 0));
  while (i < edits.size()) {
    // Find the next change; a hunk runs until 2*ctx equal lines separate two changes.
    size_t first = i;
    while (first < edits.size() && edits[first].op == Op::Equal) ++first;
    if (first == edits.size()) break;
    size_t start = first >= ctx ? first - ctx : 0;
    start = std::max(start, i);
    size_t end = first;
    size_t equalRun = 0;
    for (size_t j = first; j < edits.size(); ++j) {
      if (edits[j].op == Op::Equal) {
        if (++equalRun > 2 * ctx) break;
      } else {
        equalRun = 0;
        end = j;
      }
    }
    size_t stop = std::min(edits.size(), end + 1 + ctx);
    if (out.empty()) out = "--- " + beforeLabel + "\n+++ " + afterLabel + "\n";
    // Line numbers of the hunk: the first old and new line it covers.
    size_t aStart = 0, bStart = 0, aLen = 0, bLen = 0;
    bool aSet = false, bSet = false;
    std::string body;
    for (size_t j = start; j < stop; ++j) {
      const Edit& e = edits[j];
      if (e.op != Op::Insert) {
        if (!aSet) aStart = e.a, aSet = true;
        ++aLen;
      }
      if (e.op != Op::Delete) {
        if (!bSet) bStart = e.b, bSet = true;
        ++bLen;
      }
      char mark = e.op == Op::Equal ? ' ' : e.op == Op::Delete ? '-' : '+';
      body += mark;
      body += e.op == Op::Insert ? b[e.b] : a[e.a];
      body += '\n';
    }
    // An empty side is numbered by the line before it, as diff(1) does.
    if (!aSet) {
      for (size_t j = start; j-- > 0;)
        if (edits[j].op != Op::Insert) { aStart = edits[j].a + 1; break; }
    } else {
      ++aStart;
    }
    if (!bSet) {
      for (size_t j = start; j-- > 0;)
        if (edits[j].op != Op::Delete) { bStart = edits[j].b + 1; break; }
    } else {
      ++bStart;
    }
    out += "@@ -" + std::to_string(aStart) + "," + std::to_string(aLen) + " +" +
           std::to_string(bStart) + "," + std::to_string(bLen) + " @@\n" + body;
    i = stop;
  }
  return out;
}

lsp::Expected<lsp::DiffResult> diffOf(const Snapshot& base, const Snapshot& current, Stage stage) {
  auto before = stageOf(base, stage);
  if (!before) return before.error();
  auto after = stageOf(current, stage);
  if (!after) return after.error();
  lsp::DiffResult r;
  r.baseRevision = base.revision;
  r.revision = current.revision;
  r.baseUri = virtualUri(stage, base.path, base.revision);
  r.uri = virtualUri(stage, current.path, current.revision);
  r.unified = unifiedDiff((*before)->artifact.text, (*after)->artifact.text,
                          "revision " + std::to_string(base.revision),
                          "revision " + std::to_string(current.revision));
  return r;
}

}  // namespace ks::server
