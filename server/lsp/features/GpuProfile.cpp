// A GPU profile where the user looks (hints, hover, heat), the Run / Profile / launch spec
// lenses and the written launch specs' problems. See GpuFeatures.h.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include <toml++/toml.h>

#include "ArtifactView.h"
#include "GpuFeatures.h"
#include "LaunchSpec.h"
#include "Report.h"
#include "SpecCheck.h"
#include "SpecSkeleton.h"
#include "Uri.h"

namespace ks::server {

using nlohmann::json;

namespace {

/// Lines below this share of the stall samples get no hint (they are not hot).
constexpr double kHintShare = 0.01;
/// Nor lines whose stall samples changed by less than this since the last profile.
constexpr double kDeltaHintChange = 0.05;

std::string fixed(double v, int digits) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(digits) << v;
  return out.str();
}

/// The kernels of `s` defined in its own file.
std::vector<const KernelInfo*> ownKernels(const Snapshot& s) {
  std::vector<const KernelInfo*> out;
  if (!s.result) return out;
  for (const KernelInfo& k : s.result->kernels)
    if (k.definition.line != 0 && (k.definition.file.empty() || k.definition.file == s.path))
      out.push_back(&k);
  return out;
}

/// The position of 1-based `line` and 1-based byte `column` of `text` (0: the line's start).
lsp::Position positionOfByteColumn(const std::string& text, uint32_t line, uint32_t column,
                                   PositionEncoding enc) {
  const lsp::Position start = positionOfCharColumn(text, line, 1, enc);
  if (column <= 1) return start;
  return positionOf(text, offsetOf(text, start, enc) + column - 1, enc);
}

}  // namespace

void CrateLaunchSpecs::read(const std::filesystem::path& manifest) {
  std::set<std::string> kernels;
  try {
    toml::table t = toml::parse_file(manifest.string());
    if (const toml::table* launch = t["package"]["metadata"]["kernelscope"]["launch"].as_table())
      for (const auto& [kernel, spec] : *launch)
        if (spec.is_table()) kernels.emplace(kernel.str());
  } catch (const toml::parse_error&) {
    // The compile reports an unreadable Cargo.toml; no kernel has a spec in it.
  }
  std::lock_guard lock(mutex_);
  kernels_[manifest] = std::move(kernels);
}

bool CrateLaunchSpecs::has(const std::filesystem::path& manifest, const std::string& kernel) const {
  std::lock_guard lock(mutex_);
  auto it = kernels_.find(manifest);
  return it != kernels_.end() && it->second.count(kernel);
}

json profileEditorJson(const ShownProfile& p, const std::string& uri, bool current,
                       const lsp::ArtifactFilters& filters) {
  json lines = json::array();
  json views = json::object();
  if (current) {
    for (const auto* l : gpu::hottestLines(p.lines))
      if (l->line != 0 && l->file == p.path && l->stallSamples > 0)
        lines.push_back({{"line", static_cast<int>(l->line) - 1},
                         {"share", p.lines.share(*l)},
                         {"headline", gpu::lineHeadline(p.lines, *l)}});
    // Each view line has the heat of the source line it maps to (its innermost user frame).
    for (Stage stage : {Stage::Ptx, Stage::Sass}) {
      const StageOutcome* o = p.compile->stage(stage);
      json runs = json::array();
      if (o && o->available && p.compile->lineMap) {
        const LineMap& map = *p.compile->lineMap;
        const ArtifactView view(*o->artifact, filters);
        for (uint32_t i = 0; i < o->artifact->lines().size(); ++i) {
          const int line = view.viewLine(static_cast<int>(i));
          if (line < 0) continue;  // filtered out of the view
          const LineOrigin& origin = map.origin(stage, i);
          if (origin.attribution != Attribution::Direct) continue;
          const gpu::LineCounters* c = nullptr;
          for (const auto& l : p.lines.lines)
            if (l.line == origin.user.line && l.file == origin.user.file) c = &l;
          if (!c || c->stallSamples <= 0) continue;
          double share = p.lines.share(*c);
          if (!runs.empty() && runs.back()["end"] == line - 1 && runs.back()["share"] == share)
            runs.back()["end"] = line;
          else
            runs.push_back({{"start", line}, {"end", line}, {"share", share}});
        }
      }
      views[std::string(stageName(stage))] = runs;
    }
  }
  json out = {{"uri", uri},
              {"current", current},
              {"kernel", p.lines.kernel},
              {"lines", lines},
              {"views", views}};
  if (!p.since.empty()) out["since"] = p.since;
  // The change of each line since the last profile, for a delta heat: lines that got better
  // or worse (stallChange), and new lines (hint only).
  json deltas = json::array();
  if (current)
    for (const auto& d : p.deltas) {
      std::string hint = d.hint(p.since);
      if (d.line == 0 || hint.empty()) continue;
      json j = {{"line", static_cast<int>(d.line) - 1}, {"hint", hint}};
      if (auto change = d.stallChange()) j["stallChange"] = *change;
      deltas.push_back(std::move(j));
    }
  out["deltas"] = deltas;
  return out;
}

std::string profileDeltaHint(const ShownProfile& p, int line) {
  const gpu::LineDelta* d = p.deltaAt(static_cast<uint32_t>(line + 1));
  if (!d) return "";
  // Lines cold in both profiles, or about as slow as before, say nothing worth a hint.
  if (std::max(d->before.share, d->after.share) < kHintShare) return "";
  if (auto change = d->stallChange(); change && std::fabs(*change) < kDeltaHintChange) return "";
  return d->hint(p.since);
}

std::vector<lsp::InlayHint> profileHints(const ShownProfile& p, const lsp::Range& range,
                                         PositionEncoding enc) {
  std::vector<lsp::InlayHint> hints;
  auto hint = [&](int line, std::string label) {
    lsp::InlayHint h;
    h.position = endOfLine(p.text, line, enc);
    h.label = std::move(label);
    h.tooltip = profileHoverText(p, line);
    hints.push_back(std::move(h));
  };
  // The change since the last profile first: editors cut a line's hints to a length, and the
  // change is what a second profile is for. Also on a line that was hot and is no longer.
  for (const auto& d : p.deltas) {
    const int line = static_cast<int>(d.line) - 1;
    if (d.line == 0 || line < range.start.line || line > range.end.line) continue;
    if (std::string text = profileDeltaHint(p, line); !text.empty()) hint(line, std::move(text));
  }
  for (const auto& l : p.lines.lines) {
    int line = static_cast<int>(l.line) - 1;
    if (l.line == 0 || l.file != p.path || line < range.start.line || line > range.end.line)
      continue;
    if (p.lines.share(l) >= kHintShare) hint(line, gpu::lineHeadline(p.lines, l));
  }
  std::stable_sort(hints.begin(), hints.end(),
                   [](const auto& a, const auto& b) { return a.position.line < b.position.line; });
  return hints;
}

std::string profileHoverText(const ShownProfile& p, int line) {
  const gpu::LineCounters* l = p.at(static_cast<uint32_t>(line + 1));
  const gpu::LineDelta* d = p.deltaAt(static_cast<uint32_t>(line + 1));
  std::string since;
  if (d && !d->hint(p.since).empty()) {
    since = d->hint(p.since);
    if (d->beforeLine)
      since += " (line " + std::to_string(*d->beforeLine) +
               " then: " + fixed(100 * d->before.share, 1) + "% -> " +
               fixed(100 * d->after.share, 1) + "% of the stall samples, " +
               gpu::compactCount(d->before.stallSamples) + " -> " +
               gpu::compactCount(d->after.stallSamples) + " samples, L2 sectors " +
               gpu::compactCount(d->before.l2Sectors) + " -> " +
               gpu::compactCount(d->after.l2Sectors) + ")";
  }
  if (!l) return since;
  std::string s = "GPU profile of " + p.lines.kernel + " (" + p.device +
                  "): " + fixed(100 * p.lines.share(*l), 1) + "% of the stall samples";
  std::string reasons;
  for (const auto& [reason, v] : l->topStalls(3))
    reasons += (reasons.empty() ? "" : ", ") + gpu::stallReasonWords(reason) + " " +
               fixed(100 * v / std::max(1.0, l->stallSamples), 0) + "%";
  if (!reasons.empty()) s += " (" + reasons + ")";
  s += "; " + std::to_string(l->instructions) + " instructions, " + gpu::compactCount(l->executed) +
       " executed, " + fixed(l->threadsActive(), 1) + " threads active";
  if (l->l2SectorsIdeal > 0)
    s += "; L2 sectors " + gpu::compactCount(l->l2Sectors) + " (" + fixed(l->sectorsPerIdeal(), 2) +
         "x ideal)";
  if (l->sharedConflictWays > 0)
    s += "; shared memory " + fixed(l->sharedConflictWays, 0) + "-way bank conflicts";
  if (!since.empty()) s += "; " + since;
  return s;
}

std::vector<lsp::CodeLens> gpuLenses(const Snapshot& s, PositionEncoding enc,
                                     const CrateLaunchSpecs& crateSpecs) {
  std::vector<lsp::CodeLens> lenses;
  const std::string& uri = s.uri;  // the client's own spelling
  for (const KernelInfo* k : ownKernels(s)) {
    lsp::Range range;
    range.start = positionOfCharColumn(s.text, k->definition.line, 1, enc);
    range.end = range.start;
    auto lens = [&](std::string title, std::string command) {
      lsp::Command c{std::move(title), std::move(command),
                     json::array({{{"uri", uri}, {"kernel", k->symbol}}})};
      lenses.push_back(lsp::CodeLens{range, std::move(c)});
    };
    std::vector<gpu::SpecError> errors;  // reported when it runs
    if (!gpu::specFromComments(s.text, k->definition.line, s.path, errors).empty() ||
        !errors.empty() || crateSpecs.has(s.result->crateManifest, k->symbol)) {
      lens("▶ Run", "kernelscope.run");
      lens("Profile", "kernelscope.profile");
    } else {
      lens("Add launch spec", "kernelscope.insertLaunchSpec");
    }
  }
  return lenses;
}

std::optional<SpecInsertion> specInsertion(const Snapshot& s, const std::string& kernel,
                                           PositionEncoding enc, std::string& problem) {
  const KernelInfo* found = nullptr;
  for (const KernelInfo* k : ownKernels(s))
    if (!found && namesKernel(k->symbol, k->demangled, kernel)) found = k;
  if (!found) {
    problem = "no kernel '" + kernel + "' in " + s.path;
    return std::nullopt;
  }
  std::string note;
  auto sig = gpu::kernelSignature(*s.result, found->symbol, {{s.path, s.text}}, note);
  if (!sig) {
    problem = "the parameters of " + kernel + " are unknown (no PTX)";
    return std::nullopt;
  }
  // Right above the kernel's name line, indented like it: inside its attribute block.
  auto lines = splitLines(s.text);
  std::string_view nameLine =
      found->definition.line <= lines.size() ? lines[found->definition.line - 1] : "";
  std::string indent(nameLine.substr(0, nameLine.find_first_not_of(" \t")));
  SpecInsertion ins;
  ins.at = positionOfCharColumn(s.text, found->definition.line, 1, enc);
  ins.text = indent + "// kernelscope: " + gpu::specSkeleton(*sig) + "\n";
  return ins;
}

std::vector<SpecDiagnostic> specDiagnostics(const Snapshot& s, PositionEncoding enc,
                                            const CrateLaunchSpecs& crateSpecs) {
  std::vector<SpecDiagnostic> out;
  for (const KernelInfo* k : ownKernels(s)) {
    const bool crateSpec = crateSpecs.has(s.result->crateManifest, k->symbol);
    for (const gpu::SpecProblem& p :
         gpu::checkWrittenSpec(*s.result, *k, s.path, s.text, crateSpec)) {
      const gpu::SpecError& e = p.error;
      SpecDiagnostic d;
      d.diagnostic.severity = lsp::DiagnosticSeverity::Error;
      d.diagnostic.source = "kernelscope";
      d.diagnostic.code = std::string(gpu::specErrorCode(e.kind));
      d.diagnostic.message = "launch spec of " + k->symbol + ": " + e.message;
      if (e.column) {
        d.diagnostic.range = {positionOfByteColumn(s.text, e.line, e.column, enc),
                              positionOfByteColumn(s.text, e.line, e.endColumn, enc)};
      } else {
        const int line = static_cast<int>(e.line) - 1;
        d.diagnostic.range = {{line, 0}, endOfLine(s.text, line, enc)};
      }
      if (p.fix) {
        const gpu::SpecEdit& edit = p.fix->edit;
        lsp::CodeAction action;
        action.title = p.fix->title;
        action.diagnostics = {d.diagnostic};
        action.isPreferred = true;
        action.changes[s.uri].push_back(
            {{positionOfByteColumn(s.text, edit.line, edit.column, enc),
              positionOfByteColumn(s.text, edit.line, edit.endColumn, enc)},
             edit.text});
        d.fix = std::move(action);
      }
      out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace ks::server
