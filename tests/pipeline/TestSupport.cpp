// Shared test helpers: see TestSupport.h.
#include "TestSupport.h"

#include <doctest/doctest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <list>
#include <set>
#include <sstream>

#include "TextUtil.h"

namespace ks::test {

namespace fs = std::filesystem;

fs::path sourceDir() { return KS_SOURCE_DIR; }

void checkGolden(const fs::path& golden, const std::string& actual) {
  const char* update = std::getenv("UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(golden, std::ios::binary) << actual;
    MESSAGE("updated " << golden.string());
    return;
  }
  INFO("golden file: " << golden.string() << " (run with UPDATE_GOLDEN=1 to rewrite)");
  REQUIRE_MESSAGE(fs::exists(golden), "missing golden file");
  std::string expected = readWholeFile(golden);
  if (expected == actual) return;
  // Report the first differing line rather than two whole files.
  auto e = splitLines(expected), a = splitLines(actual);
  size_t i = 0;
  while (i < e.size() && i < a.size() && e[i] == a[i]) ++i;
  FAIL("differs at line " << i + 1
                          << "\n  expected: " << (i < e.size() ? std::string(e[i]) : "<end>")
                          << "\n  actual:   " << (i < a.size() ? std::string(a[i]) : "<end>"));
}

namespace {
char kindLetter(LineKind k) {
  switch (k) {
    case LineKind::Instruction:
      return 'I';
    case LineKind::Label:
      return 'L';
    case LineKind::Directive:
      return 'D';
    case LineKind::Header:
      return 'H';
    case LineKind::Other:
      return ' ';
  }
  return '?';
}
std::string shortPath(const std::string& p) {
  // Library files by their path inside the Rust sources; the user's by their name.
  if (auto pos = p.find("/library/"); pos != std::string::npos) return "$lib/" + p.substr(pos + 9);
  return fs::path(p).filename().string();
}
}  // namespace

std::string withNamesReplaced(std::string_view text, std::string_view prefix,
                              std::string_view placeholder) {
  std::string out;
  out.reserve(text.size());
  size_t from = 0;
  for (size_t at; (at = text.find(prefix, from)) != std::string_view::npos;) {
    size_t end = at + prefix.size();
    while (end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-'))
      ++end;
    out.append(text.substr(from, at - from)).append(placeholder);
    from = end;
  }
  return out.append(text.substr(from));
}

std::string dumpArtifact(const Artifact& a) {
  std::ostringstream out;
  out << "# functions\n";
  for (const auto& f : a.functions)
    out << "#  " << f.symbol << " = " << f.demangled << " [" << f.firstLine + 1 << "-"
        << f.lastLine + 1 << "]" << (f.isKernel ? " kernel" : "") << "\n";
  for (size_t i = 0; i < a.lines().size(); ++i) {
    const auto& l = a.lines()[i];
    out << i + 1 << " " << kindLetter(l.kind);
    if (l.function >= 0) out << " f" << l.function;
    if (!l.location.empty()) {
      out << " @";
      for (size_t k = 0; k < l.location.size(); ++k) {
        const Frame& f = l.location[k];
        out << (k ? " < " : "") << shortPath(f.file) << ":" << f.line << ":" << f.column;
        if (!f.function.empty()) out << "(" << f.function << ")";
      }
      if (l.source == LocationSource::Regenerated) out << " [exact]";
      if (l.source == LocationSource::Guessed) out << " [guessed]";
    }
    out << " | " << text::trim(a.shownLine(i)) << "\n";
  }
  return out.str();
}

const std::vector<std::string>& compilingKernels() {
  static const std::vector<std::string> kernels = {"examples/saxpy.rs",
                                                   "examples/vector_add.rs",
                                                   "examples/elementwise_mul.rs",
                                                   "examples/reduce_sum.rs",
                                                   "examples/matmul_naive.rs",
                                                   "examples/matmul_tiled.rs",
                                                   "tests/fixtures/atomics.rs",
                                                   "tests/fixtures/iterators.rs",
                                                   "tests/fixtures/local_array.rs",
                                                   "tests/fixtures/jump_table.rs",
                                                   "tests/fixtures/spin_after_panic.rs"};
  return kernels;
}

Fixture::Fixture(const fs::path& p) : path(fs::absolute(p)), text(readWholeFile(p)) {
  REQUIRE_MESSAGE(!text.empty(), "cannot read fixture " << p.string());
  auto lines = splitLines(text);
  for (uint32_t i = 0; i < lines.size(); ++i) {
    auto pos = lines[i].find("// <- ");
    if (pos != std::string_view::npos)
      markers[std::string(text::trim(lines[i].substr(pos + 6)))] = i + 1;
  }
}

uint32_t Fixture::line(const std::string& marker) const {
  auto it = markers.find(marker);
  REQUIRE_MESSAGE(it != markers.end(), "no marker '" << marker << "' in " << path.string());
  return it->second;
}

uint32_t Fixture::lineOf(std::string_view snippet) const {
  auto lines = splitLines(text);
  for (uint32_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(snippet) != std::string_view::npos) return i + 1;
  FAIL("no line with '" << std::string(snippet) << "' in " << path.string());
  return 0;
}

const CompileResult& compiled(const fs::path& file, const CompileOptions& opts) {
  // One compile per file and options, every choice counted (CompileOptions::operator==: the
  // remarks too), kept for the tests that ask for it again.
  struct Entry {
    fs::path file;
    CompileOptions options;
    CompileResult result;
  };
  static std::list<Entry> cache;  // a list: the results handed out stay where they are
  const fs::path path = fs::absolute(file);
  for (const Entry& e : cache)
    if (e.file == path && e.options == opts) return e.result;
  cache.push_back(
      {path, opts, compileKernel(toolchain(), {path, std::nullopt}, resolveOptions(opts))});
  return cache.back().result;
}

const std::vector<std::string>& recordedKernels() {
  // The kernels the line-map tests name, each a shape of its own: the compiling kernels but
  // the larger examples, as every recording adds its tools' whole output to the repository.
  static const std::vector<std::string> kernels = [] {
    const std::set<std::string> unrecorded = {"examples/vector_add.rs", "examples/reduce_sum.rs",
                                              "examples/matmul_naive.rs",
                                              "examples/matmul_tiled.rs"};
    std::vector<std::string> out;
    for (const std::string& k : compilingKernels())
      if (!unrecorded.count(k)) out.push_back(k);
    return out;
  }();
  return kernels;
}

std::vector<std::string> recordedFiles() {
  std::vector<std::string> files = recordedKernels();
  files.emplace_back("tests/fixtures/broken.rs");
  return files;
}

fs::path recordingOf(const fs::path& file) {
  return sourceDir() / "tests/golden/tools" / file.stem();
}

const CompileResult& replayed(const fs::path& file) {
  static std::map<fs::path, CompileResult> cache;
  const fs::path path = fs::absolute(file);
  if (auto it = cache.find(path); it != cache.end()) return it->second;
  INFO("recording: " << recordingOf(path).string()
                     << " (tests/golden/tools/README.md says how to record it)");
  REQUIRE(fs::exists(recordingOf(path) / "commands.json"));
  const Toolchain tc = replayToolchain(recordingOf(path), sourceDir());
  CompileResult r = compileKernel(tc, {path, std::nullopt}, resolveOptions({}));
  const auto misses = std::dynamic_pointer_cast<const ReplayingRunner>(tc.runner)->misses();
  REQUIRE_MESSAGE(misses.empty(), misses.front());
  return cache.emplace(path, std::move(r)).first->second;
}

std::vector<std::string> instructionsFor(const CompileResult& r, Stage s, const std::string& file,
                                         uint32_t line, bool includeInlined) {
  std::vector<std::string> out;
  const StageOutcome* st = r.stage(s);
  if (!st || !st->available || !r.lineMap) return out;
  const StageLines& sl = r.lineMap->linesFor(s, {normalizePath(file), line});
  for (uint32_t l : sl.direct) out.emplace_back(text::trim(st->artifact->lineText(l)));
  if (includeInlined)
    for (uint32_t l : sl.inlined) out.emplace_back(text::trim(st->artifact->lineText(l)));
  return out;
}

ProcessResult runKernelscope(const std::vector<std::string>& args,
                             const std::vector<std::pair<std::string, std::string>>& env) {
  ProcessSpec spec;
  spec.argv = {KS_BINARY};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = env;
  spec.cwd = sourceDir();
  spec.timeout = std::chrono::seconds(120);
  return runProcess(spec);
}

}  // namespace ks::test
