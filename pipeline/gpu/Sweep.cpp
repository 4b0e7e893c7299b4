#include "Sweep.h"

#include <algorithm>
#include <cmath>

#include "GpuExec.h"

namespace ks::gpu {

namespace {

/// Whether two runs' values of a buffer are the same: integers exactly; floats within a
/// relative 1e-4 (plus a little per element for sums that cancel), since a configuration with
/// another grid adds the same numbers in another order.
bool sameValue(ElemType e, double a, double b, uint64_t count) {
  if (!isFloat(e)) return a == b;
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::fabs(a - b) <= 1e-4 * std::max(std::fabs(a), std::fabs(b)) + 1e-6 * double(count);
}

bool sameBuffer(const BufferResult& x, const BufferResult& y) {
  if (x.count != y.count || x.elem != y.elem || x.first.size() != y.first.size()) return false;
  if (x.elem == ElemType::Record) return true;  // structs carry no checksum to compare
  if (!sameValue(x.elem, x.checksum, y.checksum, x.count)) return false;
  for (size_t i = 0; i < x.first.size(); ++i)
    if (!sameValue(x.elem, x.first[i], y.first[i], 1)) return false;
  return true;
}

bool sameOutputs(const SweepPoint& x, const SweepPoint& y) {
  const auto &a = x.run.buffers, &b = y.run.buffers;
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].output && (a[i].name != b[i].name || !sameBuffer(a[i], b[i]))) return false;
  return true;
}

/// The point whose outputs the others must match: the kernel's own launch when the sweep
/// has it, else the outputs most configurations agree on (the earliest on a tie).
std::optional<size_t> referencePoint(const std::vector<SweepPoint>& points,
                                     std::optional<size_t> own) {
  if (own && points[*own].ran()) return own;
  std::optional<size_t> best;
  size_t bestVotes = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    if (!points[i].ran()) continue;
    size_t votes = 0;
    for (const auto& q : points) votes += q.ran() && sameOutputs(points[i], q);
    if (votes > bestVotes) best = i, bestVotes = votes;
  }
  return best;
}

/// The output buffers of the points that differ from the reference's, each with where.
std::vector<std::string> differingOutputs(std::vector<SweepPoint>& points, size_t reference) {
  std::vector<std::string> out;
  const auto& ref = points[reference].run.buffers;
  for (size_t b = 0; b < ref.size(); ++b) {
    if (!ref[b].output) continue;
    std::string where;
    for (auto& p : points) {
      if (!p.ran() || &p == &points[reference]) continue;
      const auto& other = p.run.buffers;
      if (b < other.size() && other[b].name == ref[b].name && sameBuffer(ref[b], other[b]))
        continue;
      p.outputsDiffer = true;
      where += (where.empty() ? "" : "; ") + p.label();
    }
    if (!where.empty()) out.push_back(ref[b].name + " at " + where);
  }
  return out;
}

}  // namespace

std::string parseSweepAxis(std::string_view text, SweepAxis& out) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos)
    return "--sweep takes NAME=V1,V2,... (e.g. --sweep block=64,128,256), not '" +
           std::string(text) + "'";
  out.name = std::string(trimSpace(text.substr(0, eq)));
  if (!isPlainParameterName(out.name))
    return "--sweep: '" + out.name + "' is not a spec variable's name";
  out.values = splitTopLevel(text.substr(eq + 1), ',');
  for (const auto& v : out.values)
    if (v.empty()) return "--sweep " + out.name + ": an empty value";
  if (out.values.empty()) return "--sweep " + out.name + ": no values";
  return "";
}

std::string SweepPoint::label() const {
  std::string s;
  for (const auto& [name, value] : values) s += (s.empty() ? "" : ", ") + name + " = " + value;
  return s;
}

namespace {

/// Runs each configuration that has a request: `parallel` at once (a cluster's job steps),
/// else one after the other so that each has the GPU to itself.
void runPoints(const std::vector<std::optional<ExecRequest>>& requests,
               std::vector<SweepPoint>& points, const LaunchSettings& launch, size_t parallel,
               const std::string& kernel, const GpuProgress& progress,
               const CancellationToken& cancel) {
  forEachAtOnce(points.size(), parallel, [&](size_t i) {
    if (!requests[i] || cancel.cancelled()) return;
    SweepPoint& p = points[i];
    if (progress) progress("launching " + kernel + " with " + p.label());
    p.run = runGpuExec(*requests[i], launch, cancel);
    if (!p.run.ok)
      p.error = p.run.error.empty() ? "the run failed (" + p.run.errorKind + ")" : p.run.error;
    else if (!p.run.timesMs.empty())
      p.medianMs = timeStats(p.run.timesMs).median;
  });
}

}  // namespace

SweepOutcome runSweep(Engine& engine, const GpuRequest& req, const std::vector<SweepAxis>& axes,
                      size_t parallel, const GpuProgress& progress,
                      const CancellationToken& cancel) {
  SweepOutcome out;
  size_t total = 1;
  for (const auto& a : axes) {
    total *= a.values.size();
    if (total > kMaxSweepConfigurations)
      return out.error = "the sweep has more than " + std::to_string(kMaxSweepConfigurations) +
                         " configurations",
             out;
  }
  if (progress) progress("compiling " + req.input.path.filename().string());
  LaunchCompile c = compileForLaunch(engine, req.input, req.options, req.kernel, cancel);
  if (cancel.cancelled() || c.problem == "cancelled") return out.cancelled = true, out;
  out.kernel = c.kernel;
  out.arch = c.result.arch;
  if (!c.problem.empty()) {
    out.details = c.errors;
    out.error = c.problem;
    return out;
  }
  const KernelInfo* info = findKernel(c.result, c.kernel);

  // The kernel's own launch (no swept values): the configuration equal to it is the one whose
  // outputs the others are checked against.
  PreparedLaunch own = prepareLaunch(engine.toolchain(), c.result, c.cubin, c.kernel, req.launch,
                                     ExecRequest::Mode::Run);
  const std::string ownRequest = own.request ? encodeRequest(*own.request) : std::string();
  std::optional<size_t> ownPoint;

  // Each configuration's request, made here (cheap), before any runs.
  std::vector<std::optional<ExecRequest>> requests(total);
  out.points.resize(total);
  for (size_t i = 0; i < total; ++i) {
    SweepPoint& p = out.points[i];
    LaunchSettings settings = req.launch;
    for (size_t a = 0, rest = i; a < axes.size(); ++a) {
      size_t stride = 1;
      for (size_t b = a + 1; b < axes.size(); ++b) stride *= axes[b].values.size();
      const std::string& value = axes[a].values[rest / stride];
      rest %= stride;
      p.values.emplace_back(axes[a].name, value);
      settings.specItems.push_back(axes[a].name + " = " + value);
    }
    PreparedLaunch prepared = prepareLaunch(engine.toolchain(), c.result, c.cubin, c.kernel,
                                            settings, ExecRequest::Mode::Run);
    if (i == 0) out.notes = prepared.notes;
    if (!prepared.request) {
      for (const auto& e : prepared.errors) p.error += (p.error.empty() ? "" : "\n") + e;
      continue;
    }
    p.plan = prepared.request->plan;
    if (!ownRequest.empty() && !ownPoint && encodeRequest(*prepared.request) == ownRequest)
      ownPoint = i;
    if (info && info->resources) {
      const auto& block = p.plan->block;
      if (auto occ = kernelOccupancy(c.result.arch, *info->resources,
                                     block[0] * block[1] * block[2], p.plan->sharedBytes))
        p.predicted = occ->atBlockSize;
    }
    requests[i] = std::move(prepared.request);
  }

  runPoints(requests, out.points, req.launch, parallel, c.kernel, progress, cancel);
  if (cancel.cancelled()) return out.cancelled = true, out;

  out.reference = referencePoint(out.points, ownPoint);
  out.referenceIsOwn = out.reference && out.reference == ownPoint;
  if (out.reference) out.differing = differingOutputs(out.points, *out.reference);
  // The fastest of the configurations that compute what the reference computes.
  for (size_t i = 0; i < total; ++i)
    if (out.points[i].ran() && !out.points[i].outputsDiffer && out.points[i].medianMs > 0 &&
        (!out.best || out.points[i].medianMs < out.points[*out.best].medianMs))
      out.best = i;
  out.equalityRule =
      "integers exactly, floats within 1e-4 relative (another grid adds in another order)";
  return out;
}

}  // namespace ks::gpu
