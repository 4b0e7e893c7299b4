// Artifact helpers: stage names, line indexing and path normalization shared by all parsers.
#include "Artifact.h"

#include <algorithm>

namespace ks {

namespace {
struct StageNames {
  Stage stage;
  std::string_view name, language, extension;
};
constexpr StageNames kStageNames[] = {
    {Stage::Mir, "mir", "mir", "mir"},
    {Stage::LlvmIr, "llvm-ir", "llvm", "ll"},
    {Stage::Ptx, "ptx", "ptx", "ptx"},
    {Stage::Sass, "sass", "sass", "sass"},
};
const StageNames& namesOf(Stage s) {
  return *std::find_if(std::begin(kStageNames), std::end(kStageNames),
                       [s](const StageNames& n) { return n.stage == s; });
}
}  // namespace

Chain::Chain(std::vector<Frame> frames) {
  if (!frames.empty()) frames_ = std::make_shared<const std::vector<Frame>>(std::move(frames));
}

const std::vector<Frame>& Chain::frames() const {
  static const std::vector<Frame> kNone;
  return frames_ ? *frames_ : kNone;
}

size_t ChainInterner::Hash::operator()(const std::vector<Frame>& chain) const {
  size_t h = chain.size();
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (const Frame& f : chain) {
    mix(std::hash<std::string>{}(f.file));
    mix(f.line);
    mix(f.column);
    mix(std::hash<std::string>{}(f.function));
  }
  return h;
}

Chain ChainInterner::intern(std::vector<Frame> frames) {
  if (frames.empty()) return {};
  auto it = chains_.find(frames);
  if (it != chains_.end()) return it->second;
  for (Frame& f : frames) {
    f.file = texts_.intern(f.file);
    f.function = texts_.intern(f.function);
  }
  Chain chain(frames);
  chains_.emplace(std::move(frames), chain);
  return chain;
}

Chain ChainInterner::intern(const Chain& chain) {
  if (chain.empty()) return chain;
  auto it = chains_.find(chain.frames());
  return it != chains_.end() ? it->second : intern(chain.frames());
}

std::string_view stageName(Stage s) { return namesOf(s).name; }
std::string_view stageLanguage(Stage s) { return namesOf(s).language; }
std::string_view stageExtension(Stage s) { return namesOf(s).extension; }

std::string stageNameList() {
  std::string list;
  for (Stage s : kAllStages) list += (list.empty() ? "" : ", ") + std::string(stageName(s));
  return list;
}

std::optional<Stage> stageFromName(std::string_view name) {
  for (const auto& n : kStageNames)
    if (n.name == name) return n.stage;
  return std::nullopt;
}

std::optional<Stage> stageFromTypedName(std::string_view name) {
  if (name == "llvm" || name == "ll" || name == "ir") return Stage::LlvmIr;
  return stageFromName(name);
}

Artifact::Artifact(Stage stage, std::string text) : stage(stage), text_(std::move(text)) {
  // Exactly one start per line: kept with the artifact, so without a doubling's slack.
  lineStarts_.reserve(std::count(text_.begin(), text_.end(), '\n') + 1);
  size_t pos = 0;
  while (pos < text_.size()) {
    lineStarts_.push_back(static_cast<uint32_t>(pos));
    size_t nl = text_.find('\n', pos);
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  lines_.resize(lineStarts_.size());
}

Artifact::Artifact(Stage stage, std::string text, std::vector<ArtifactLine> lines,
                   std::vector<ArtifactFunction> functions)
    : Artifact(stage, std::move(text)) {
  lines.resize(lines_.size());
  lines_ = std::move(lines);
  this->functions = std::move(functions);
}

uint32_t Artifact::lineAt(size_t offset) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  return it == lineStarts_.begin() ? 0 : static_cast<uint32_t>(it - lineStarts_.begin() - 1);
}

size_t Artifact::bytesHeld() const {
  return text_.capacity() + lineStarts_.capacity() * sizeof(uint32_t) +
         lines_.capacity() * sizeof(ArtifactLine) + functions.capacity() * sizeof(ArtifactFunction);
}

std::string_view Artifact::lineText(size_t i) const {
  if (i >= lineStarts_.size()) return {};
  size_t start = lineStarts_[i];
  size_t end = i + 1 < lineStarts_.size() ? lineStarts_[i + 1] - 1 : text_.size();
  std::string_view line(text_.data() + start, end - start);
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

namespace {

/// Where a place marker starts in SASS line `i` (after its indent), if it is one.
std::optional<size_t> placeMarkerAt(const Artifact& a, size_t i, std::string_view line) {
  if (a.stage != Stage::Sass || a.lines()[i].kind != LineKind::Directive ||
      a.lines()[i].location.empty() || !line.ends_with(kSassPlaceMarker))
    return std::nullopt;
  const size_t at = line.size() - kSassPlaceMarker.size();
  if (line.find_first_not_of(" \t") != at) return std::nullopt;
  return at;
}

}  // namespace

std::string Artifact::shownLine(size_t i) const {
  const std::string_view line = lineText(i);
  const std::optional<size_t> marker =
      i < lines_.size() ? placeMarkerAt(*this, i, line) : std::nullopt;
  if (!marker) return std::string(line);
  return std::string(line.substr(0, *marker)) + sassPlaceComment(lines_[i].location);
}

std::string Artifact::shownText() const {
  if (stage != Stage::Sass) return text_;
  std::string out;
  out.reserve(text_.size() * 2);
  size_t copied = 0;  // text_ up to here is in out
  for (size_t i = 0; i < lines_.size(); ++i) {
    const std::string_view line = lineText(i);
    const std::optional<size_t> marker = placeMarkerAt(*this, i, line);
    if (!marker) continue;
    const size_t start = lineStarts_[i];
    out.append(text_, copied, start + *marker - copied);
    out += sassPlaceComment(lines_[i].location);
    copied = start + line.size();
  }
  out.append(text_, copied);
  return out;
}

std::string sassPlaceComment(const Chain& chain) {
  if (chain.empty()) return "//## compiler-generated (no source line)";
  // One allocation: a listing has a comment wherever the place changes, tens of thousands.
  size_t size = 0;
  for (const Frame& f : chain) size += f.file.size() + 32;
  std::string out;
  out.reserve(size);
  for (size_t k = 0; k < chain.size(); ++k) {
    out += k == 0 ? "//## File \"" : " inlined at \"";
    out += chain[k].file;
    out += "\", line ";
    out += std::to_string(chain[k].line);
  }
  return out;
}

size_t Artifact::instructionCount() const {
  return static_cast<size_t>(std::count_if(lines_.begin(), lines_.end(), [](const ArtifactLine& l) {
    return l.kind == LineKind::Instruction;
  }));
}

bool namesKernel(std::string_view symbol, std::string_view demangled, std::string_view name) {
  if (name.empty()) return false;
  if (symbol == name || demangled == name) return true;
  return demangled.size() > name.size() + 2 && demangled.ends_with(name) &&
         demangled.substr(demangled.size() - name.size() - 2, 2) == "::";
}

std::string normalizePath(std::string_view path) {
  bool absolute = !path.empty() && path.front() == '/';
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(pos, slash - pos);
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..")
        parts.pop_back();
      else if (!absolute)
        parts.push_back(part);
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    pos = slash + 1;
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  return out.empty() ? "." : out;
}

}  // namespace ks
