// Shared test helpers: paths, golden files, artifact dumps, marked fixtures, and the
// toolchain (discovered once; tests that compile need it and say so when it is missing), or
// its recorded runs (ToolRecording.h).
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "Artifact.h"
#include "Compile.h"
#include "Files.h"
#include "Process.h"
#include "RequireToolchain.h"  // toolchain(), requireToolchain()
#include "ToolRecording.h"
#include "Toolchain.h"

namespace ks::test {

std::filesystem::path sourceDir();

/// Compares `actual` with the golden file; with UPDATE_GOLDEN=1 rewrites it instead.
void checkGolden(const std::filesystem::path& golden, const std::string& actual);

/// One line per artifact line: number, kind, function, location chain, text.
std::string dumpArtifact(const Artifact&);

/// `text` with each name that starts with `prefix` (and goes on in letters, digits and `-`,
/// as mkdtemp's do) replaced by `placeholder`: a compile's temporary directory differs
/// between runs. A scan, not std::regex: the dumps run to megabytes, and libstdc++'s regex
/// copies its match state per character (minutes of a sanitizer build's suite).
std::string withNamesReplaced(std::string_view text, std::string_view prefix,
                              std::string_view placeholder);

/// A kernel file whose lines may carry `// <- NAME` markers.
struct Fixture {
  std::filesystem::path path;
  std::string text;
  std::map<std::string, uint32_t> markers;  // NAME -> 1-based line
  explicit Fixture(const std::filesystem::path& path);
  uint32_t line(const std::string& marker) const;
  /// The 1-based number of the first line containing `snippet`.
  uint32_t lineOf(std::string_view snippet) const;
};

/// The kernels that compile, relative to the source directory: the examples and the marked
/// fixtures (every shape the line map has to get right).
const std::vector<std::string>& compilingKernels();

/// Compiles a file (cached per path and options within the test run).
const CompileResult& compiled(const std::filesystem::path& file, const CompileOptions& = {});

/// The kernels whose tool runs are recorded (tests/golden/tools/), relative to the source
/// directory: a compile of each replays without the toolchain.
const std::vector<std::string>& recordedKernels();

/// Every file whose tool runs are recorded: recordedKernels(), and one that does not compile
/// (tests/fixtures/broken.rs: rustc's errors, which the LSP diagnostics tests read).
std::vector<std::string> recordedFiles();

/// Where the tool runs of compiling `file` (with the default options) are recorded.
std::filesystem::path recordingOf(const std::filesystem::path& file);

/// Compiles a recorded kernel with the default options on its recording: no tool starts, and
/// a command the recording does not hold fails the test (cached per path within the test run).
const CompileResult& replayed(const std::filesystem::path& file);

/// The trimmed text of the artifact lines that `line` of `file` became (direct ones).
std::vector<std::string> instructionsFor(const CompileResult&, Stage, const std::string& file,
                                         uint32_t line, bool includeInlined = false);

/// Runs the kernelscope binary with `args` from the source directory, as a user would;
/// `env` is added to (or replaces in) the environment.
ProcessResult runKernelscope(const std::vector<std::string>& args,
                             const std::vector<std::pair<std::string, std::string>>& env = {});

/// Whether one of `lines` holds `what`.
inline bool anyContains(const std::vector<std::string>& lines, std::string_view what) {
  return std::any_of(lines.begin(), lines.end(),
                     [&](const std::string& l) { return l.find(what) != std::string::npos; });
}

/// Whether `files` (normalized paths) hold `f`.
inline bool containsFile(const std::vector<std::filesystem::path>& files,
                         const std::filesystem::path& f) {
  return std::find(files.begin(), files.end(), std::filesystem::path(normalizePath(f.string()))) !=
         files.end();
}

/// The test binary's second role (TestMain.cpp, KS_TEST_TEMPDIR_CHURN set): it makes and
/// removes TempDirs on several threads until a terminating signal ends it.
[[noreturn]] void churnTempDirsUntilSignalled();

}  // namespace ks::test
