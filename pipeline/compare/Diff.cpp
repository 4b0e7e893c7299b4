// Diffs of generated code: normalized line comparison (the shortest edit script, EditScript.h),
// unified diff text, and the per-stage summary of two compiles.
#include "Diff.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "EditScript.h"
#include "TextUtil.h"

namespace ks {

namespace {

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool isDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

/// Tabs and runs of blanks become one space; the ends are trimmed.
std::string collapseBlanks(std::string_view s) {
  std::string out;
  for (char c : text::trim(s)) {
    if (c == '\t') c = ' ';
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return out;
}

/// `s` up to a comment that starts with `marker` outside double quotes.
std::string_view beforeComment(std::string_view s, std::string_view marker) {
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') quoted = !quoted;
    if (!quoted && s.substr(i, marker.size()) == marker) return s.substr(0, i);
  }
  return s;
}

/// PTX: virtual registers lose their numbers (%r12 -> %r, %rd<8> -> %rd<N>), branch
/// labels theirs ($L__BB0_3 -> $L__BB).
std::string normalizePtx(std::string_view s) {
  static const std::string_view kRegisterClasses[] = {"r",  "rd", "rs", "rq", "f",
                                                      "fd", "p",  "h",  "hh"};
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '%') {
      size_t j = i + 1;
      while (j < s.size() && std::islower(static_cast<unsigned char>(s[j]))) ++j;
      std::string_view cls = s.substr(i + 1, j - i - 1);
      size_t k = j;
      while (k < s.size() && isDigit(s[k])) ++k;
      const bool isClass = std::find(std::begin(kRegisterClasses), std::end(kRegisterClasses),
                                     cls) != std::end(kRegisterClasses);
      if (isClass && k > j && (k == s.size() || !isIdentChar(s[k]))) {
        out += '%';
        out += cls;
        i = k;
        continue;
      }
      if (isClass && k == j && j < s.size() && s[j] == '<') {  // .reg .b32 %r<12>;
        size_t close = s.find('>', j);
        if (close != std::string_view::npos) {
          out += '%';
          out += cls;
          out += "<N>";
          i = close + 1;
          continue;
        }
      }
      out += s.substr(i, j - i);
      i = j;
      continue;
    }
    if (s.substr(i, 4) == "$L__") {
      size_t j = i + 4;
      while (j < s.size() && isIdentChar(s[j])) ++j;
      std::string_view name = s.substr(i, j - i);
      while (!name.empty() && (isDigit(name.back()) || name.back() == '_')) name.remove_suffix(1);
      out += name;
      i = j;
      continue;
    }
    out += s[i++];
  }
  return out;
}

/// SASS: address comments go (/*0120*/), branch labels lose their numbers (.L_x_12 -> .L_x).
std::string normalizeSass(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.substr(i, 2) == "/*") {
      size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
      continue;
    }
    if (s.substr(i, 4) == ".L_x") {
      size_t j = i + 4;
      while (j < s.size() && (isDigit(s[j]) || s[j] == '_')) ++j;
      out += ".L_x";
      i = j;
      continue;
    }
    out += s[i++];
  }
  return out;
}

/// LLVM IR: local values lose their names (%_12, %a, %0 -> %v), metadata and attribute
/// group numbers theirs (!39 -> !N, #0 -> #N); debug locations go.
std::string normalizeIr(std::string_view s) {
  std::string out;
  bool quoted = false;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '"') quoted = !quoted;
    if (!quoted && c == ',' && s.substr(i, 7) == ", !dbg ") {
      size_t j = i + 7;
      if (j < s.size() && s[j] == '!') ++j;
      while (j < s.size() && isDigit(s[j])) ++j;
      i = j;
      continue;
    }
    if (!quoted && c == '%' && i + 1 < s.size() && s[i + 1] != '"') {
      size_t j = i + 1;
      while (j < s.size() && (isIdentChar(s[j]) || s[j] == '.' || s[j] == '$' || s[j] == '-')) ++j;
      if (j > i + 1) {
        out += "%v";
        i = j;
        continue;
      }
    }
    if (!quoted && (c == '!' || c == '#') && i + 1 < s.size() && isDigit(s[i + 1])) {
      size_t j = i + 1;
      while (j < s.size() && isDigit(s[j])) ++j;
      out += c;
      out += 'N';
      i = j;
      continue;
    }
    out += s[i++];
  }
  return out;
}

/// MIR: locals and blocks lose their numbers (_12 -> _, bb3 -> bb).
std::string normalizeMir(std::string_view s) {
  // The end of `prefix` + digits at `i` when that is a whole word there, else 0.
  auto numbered = [&](size_t i, std::string_view prefix) -> size_t {
    if ((i > 0 && isIdentChar(s[i - 1])) || s.substr(i, prefix.size()) != prefix) return 0;
    size_t k = i + prefix.size();
    while (k < s.size() && isDigit(s[k])) ++k;
    return k > i + prefix.size() && (k == s.size() || !isIdentChar(s[k])) ? k : 0;
  };
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (size_t end = numbered(i, "_")) {
      out += '_';
      i = end;
    } else if (size_t end = numbered(i, "bb")) {
      out += "bb";
      i = end;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// Beyond this many differences the change is given as "everything replaced": a bound on
// time and memory for artifacts that changed wholesale.
constexpr int kMaxEditDistance = 3000;

/// The lines of an artifact that take part in a comparison.
struct Compared {
  std::vector<std::string> keys;
  std::vector<uint32_t> lines;  // artifact line of each key
};

Compared comparedLines(const Artifact& a, bool normalize) {
  Compared c;
  for (size_t i = 0; i < a.lines().size(); ++i) {
    std::string key = normalize ? comparableLine(a, i) : collapseBlanks(a.lineText(i));
    if (key.empty()) continue;
    c.keys.push_back(std::move(key));
    c.lines.push_back(static_cast<uint32_t>(i));
  }
  return c;
}

std::string functionOf(const Artifact& a, uint32_t line) {
  if (line >= a.lines().size()) return {};
  int32_t f = a.lines()[line].function;
  return f >= 0 && size_t(f) < a.functions.size() ? a.functions[f].demangled : std::string();
}

uint32_t occupancyPercent(const KernelInfo& k) {
  return static_cast<uint32_t>(std::lround(k.occupancy->atBlockSize.fraction() * 100));
}

/// The resources that differ between two compiles of one kernel.
std::vector<ResourceChange> resourceChanges(const KernelInfo& before, const KernelInfo& after) {
  std::vector<ResourceChange> out;
  const auto& x = before.resources;
  const auto& y = after.resources;
  if (!x || !y) return out;
  auto add = [&](Resource r, uint32_t b, uint32_t a) {
    if (b != a) out.push_back({r, b, a});
  };
  add(Resource::Registers, x->registers, y->registers);
  add(Resource::Spills, x->spillStores + x->spillLoads, y->spillStores + y->spillLoads);
  add(Resource::SharedMemory, x->sharedMemory, y->sharedMemory);
  add(Resource::StackFrame, x->stackFrame, y->stackFrame);
  if (before.occupancy && after.occupancy)
    add(Resource::Occupancy, occupancyPercent(before), occupancyPercent(after));
  return out;
}

}  // namespace

std::string_view stageTitle(Stage s) {
  switch (s) {
    case Stage::Mir:
      return "MIR";
    case Stage::LlvmIr:
      return "LLVM IR";
    case Stage::Ptx:
      return "PTX";
    case Stage::Sass:
      return "SASS";
  }
  return "PTX";
}

std::string_view resourceWord(Resource r) {
  switch (r) {
    case Resource::Registers:
      return "regs";
    case Resource::Spills:
      return "spills";
    case Resource::SharedMemory:
      return "smem";
    case Resource::StackFrame:
      return "stack";
    case Resource::Occupancy:
      return "occupancy";
  }
  return "regs";
}

std::string comparableLine(const Artifact& a, size_t i) {
  if (i >= a.lines().size()) return {};
  const LineKind kind = a.lines()[i].kind;
  if (kind == LineKind::Other) return {};
  std::string_view t = text::trim(a.lineText(i));
  switch (a.stage) {
    case Stage::Mir:
      if (kind == LineKind::Directive) return {};  // `debug x => _1;`, `let mut _5: u32;`
      return collapseBlanks(normalizeMir(beforeComment(t, "//")));
    case Stage::LlvmIr:
      if (kind == LineKind::Directive) return {};  // metadata, attributes, declarations
      if (kind == LineKind::Label) return "label:";
      return collapseBlanks(normalizeIr(beforeComment(t, ";")));
    case Stage::Ptx:
      if (kind == LineKind::Directive &&
          (t.starts_with(".loc") || t.starts_with(".file") || t.starts_with(".section")))
        return {};
      if (kind == LineKind::Label && (t.starts_with("$L__tmp") || t.starts_with("$L__func_")))
        return {};
      return collapseBlanks(normalizePtx(beforeComment(t, "//")));
    case Stage::Sass: {
      if (kind == LineKind::Directive) return {};  // //## File, .section, .align, .size
      std::string s = collapseBlanks(normalizeSass(t));
      if (kind == LineKind::Instruction && s.starts_with("NOP")) return {};  // alignment padding
      return s;
    }
  }
  return {};
}

StageDiff diffArtifacts(const Artifact& before, const Artifact& after,
                        const std::string& beforeLabel, const std::string& afterLabel,
                        const DiffOptions& options) {
  StageDiff d;
  d.stage = after.stage;
  const Compared a = comparedLines(before, options.normalize),
                 b = comparedLines(after, options.normalize);
  const std::vector<Edit> edits = shortestEdit(a.keys, b.keys, kMaxEditDistance).edits;
  for (const Edit& e : edits) {
    if (e.op == EditOp::Delete && before.lines()[a.lines[e.a]].kind == LineKind::Instruction)
      ++d.removed;
    if (e.op == EditOp::Insert && after.lines()[b.lines[e.b]].kind == LineKind::Instruction)
      ++d.added;
  }

  const size_t ctx = static_cast<size_t>(std::max(options.context, 0));
  size_t i = 0;
  while (i < edits.size()) {
    size_t first = i;
    while (first < edits.size() && edits[first].op == EditOp::Equal) ++first;
    if (first == edits.size()) break;
    // The hunk runs until more than 2 * ctx equal lines separate two changes.
    size_t last = first, equalRun = 0;
    for (size_t j = first; j < edits.size(); ++j) {
      if (edits[j].op != EditOp::Equal)
        last = j, equalRun = 0;
      else if (++equalRun > 2 * ctx)
        break;
    }
    const size_t start = std::max(i, first >= ctx ? first - ctx : 0);
    const size_t stop = std::min(edits.size(), last + 1 + ctx);

    std::string body;
    size_t aCount = 0, bCount = 0;
    std::optional<uint32_t> aFirst, bFirst;
    for (size_t j = start; j < stop; ++j) {
      const Edit& e = edits[j];
      if (e.op != EditOp::Insert) {
        ++aCount;
        if (!aFirst) aFirst = a.lines[e.a];
      }
      if (e.op != EditOp::Delete) {
        ++bCount;
        if (!bFirst) bFirst = b.lines[e.b];
      }
      body += e.op == EditOp::Equal ? ' ' : e.op == EditOp::Delete ? '-' : '+';
      body += e.op == EditOp::Delete ? text::trimRight(before.lineText(a.lines[e.a]))
                                     : text::trimRight(after.lineText(b.lines[e.b]));
      body += '\n';
    }
    // An empty side is numbered by the line before it, as diff(1) does.
    auto startOf = [&](std::optional<uint32_t> firstLine, bool isBefore) -> size_t {
      if (firstLine) return *firstLine + 1;
      for (size_t j = start; j-- > 0;) {
        const Edit& e = edits[j];
        if (isBefore && e.op != EditOp::Insert) return a.lines[e.a] + 1;
        if (!isBefore && e.op != EditOp::Delete) return b.lines[e.b] + 1;
      }
      return 0;
    };
    if (d.unified.empty()) d.unified = "--- " + beforeLabel + "\n+++ " + afterLabel + "\n";
    std::string function = bFirst   ? functionOf(after, *bFirst)
                           : aFirst ? functionOf(before, *aFirst)
                                    : "";
    d.unified += "@@ -" + std::to_string(startOf(aFirst, true)) + "," + std::to_string(aCount) +
                 " +" + std::to_string(startOf(bFirst, false)) + "," + std::to_string(bCount) +
                 " @@" + (function.empty() ? "" : " " + function) + "\n" + body;
    i = stop;
  }
  return d;
}

bool CompileDiff::changed() const {
  for (const auto& s : stages)
    if (s.changed()) return true;
  return summary != kNoChange;
}

CompileDiff diffCompiles(const CompileResult& before, const CompileResult& after,
                         const std::string& beforeLabel, const std::string& afterLabel,
                         const DiffOptions& options) {
  CompileDiff d;
  std::vector<std::string> parts;
  for (Stage s : kAllStages) {
    const StageOutcome* x = before.stage(s);
    const StageOutcome* y = after.stage(s);
    if (!x || !y || !x->available || !y->available) continue;
    StageDiff sd = diffArtifacts(*x->artifact, *y->artifact, beforeLabel, afterLabel, options);
    if (sd.changed()) {
      std::string p(stageTitle(s));
      if (sd.added) p += " +" + std::to_string(sd.added);
      if (sd.removed) p += " −" + std::to_string(sd.removed);
      if (!sd.added && !sd.removed) p += " ±0";
      parts.push_back(std::move(p));
    }
    d.stages.push_back(std::move(sd));
  }

  for (const KernelInfo& k : before.kernels)
    d.kernels.push_back({k.demangled, k, std::nullopt, {}});
  for (const KernelInfo& k : after.kernels) {
    auto it = std::find_if(d.kernels.begin(), d.kernels.end(),
                           [&](const KernelChange& c) { return c.kernel == k.demangled; });
    if (it == d.kernels.end())
      d.kernels.push_back({k.demangled, std::nullopt, k, {}});
    else
      it->after = k;
  }
  const bool oneKernel = d.kernels.size() == 1;
  for (KernelChange& c : d.kernels) {
    if (!c.before) {
      parts.push_back("+kernel " + c.kernel);
      continue;
    }
    if (!c.after) {
      parts.push_back("−kernel " + c.kernel);
      continue;
    }
    c.resources = resourceChanges(*c.before, *c.after);
    const std::string who = oneKernel ? "" : c.kernel + " ";
    for (const ResourceChange& r : c.resources) {
      const std::string unit = r.resource == Resource::Occupancy ? "%" : "";
      parts.push_back(who + std::string(resourceWord(r.resource)) + " " + std::to_string(r.before) +
                      unit + "→" + std::to_string(r.after) + unit);
    }
  }
  for (const auto& p : parts) d.summary += (d.summary.empty() ? "" : ", ") + p;
  if (d.summary.empty()) d.summary = kNoChange;
  return d;
}

}  // namespace ks
