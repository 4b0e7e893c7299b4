// Recorded tool runs (tests/support/ToolRecording.h): a recording answers the commands it was
// made from, with the files they wrote put at the new run's paths, and no other; and the
// recordings in tests/golden/tools/ are what the toolchain here makes today (with
// KS_RECORD_TOOLS=1, that test records them anew instead).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "LineMap.h"
#include "TestSupport.h"
#include "TextUtil.h"

using namespace ks;
namespace fs = std::filesystem;

namespace {

/// A shell command that stands for a tool: it prints, writes a file naming the directory it
/// was given (into $1/out) after printing the file $2, and exits with status 3.
ProcessSpec shellTool(const fs::path& dir) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh",
               "-c",
               "cat \"$2\"; echo warned >&2; mkdir -p \"$1/out\"; "
               "echo \"made in $1\" > \"$1/out/k.ll\"; exit 3",
               "sh",
               dir.string(),
               (dir / "in").string()};
  return spec;
}

/// A remarks file as LLVM's YAML writer means it: the writer wraps a flow mapping
/// (`DebugLoc: { File: ..., Line: ..., Column: ... }`) near column 70, so where it breaks
/// follows the length of the paths in it, which differ between checkouts; the placeholders
/// stand for the paths, this for the wrapping.
std::string unwrappedYaml(const std::string& text) {
  static const std::regex wrap(" *\n *");
  return std::regex_replace(text, wrap, " ");
}

/// Everything a compile's readers see, in text: each stage with its lines and chains, the
/// line map's attribution of every line, the kernels, diagnostics and remarks.
std::string dumpResult(const CompileResult& r) {
  std::ostringstream out;
  out << "succeeded " << r.succeeded << "\n";
  for (const auto& [stage, outcome] : r.stages) {
    out << "## " << stageName(stage) << " " << outcome.available << " " << outcome.unavailableReason
        << "\n";
    if (!outcome.artifact) continue;
    out << test::dumpArtifact(*outcome.artifact);
    for (uint32_t l = 0; l < outcome.artifact->lines().size(); ++l) {
      const LineOrigin& o = r.lineMap->origin(stage, l);
      out << l + 1 << " " << static_cast<int>(o.attribution) << " " << o.user.line << " "
          << o.outerUserFrames.size() << o.viaLibrary << "\n";
    }
  }
  for (const KernelInfo& k : r.kernels) {
    out << "kernel " << k.symbol << " at " << k.definition.line << " ptx " << k.ptxInstructions
        << " sass " << k.sassInstructions;
    if (k.resources)
      out << " regs " << k.resources->registers << " stack " << k.resources->stackFrame
          << " spills " << k.resources->spillStores << "/" << k.resources->spillLoads << " shared "
          << k.resources->sharedMemory;
    out << "\n";
  }
  for (const Diagnostic& d : r.diagnostics)
    out << "diagnostic " << static_cast<int>(d.severity) << " " << d.source << " " << d.message
        << (d.range ? " at " + std::to_string(d.range->startLine) : "") << "\n";
  for (const Remark& m : r.remarks)
    out << "remark " << m.pass << " " << m.name << " " << m.message << " x" << m.count
        << (m.userLocation ? " at " + std::to_string(m.userLocation->line) : "") << "\n";
  return out.str();
}

/// Whether two dumps agree but for the names of the temporary directories (the IR names its
/// compile's); the first line that differs is said.
bool sameText(std::string replayed, std::string real) {
  replayed = test::withNamesReplaced(replayed, "/kernelscope-", "/$TMP");
  real = test::withNamesReplaced(real, "/kernelscope-", "/$TMP");
  const auto a = splitLines(replayed), b = splitLines(real);
  auto [x, y] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  if (x == a.end() && y == b.end()) return true;
  MESSAGE("replayed: " << (x == a.end() ? "<end>" : std::string(*x))
                       << "\nreal:     " << (y == b.end() ? "<end>" : std::string(*y)));
  return false;
}

}  // namespace

TEST_CASE("a recording answers its commands at the new run's paths, and no other command") {
  TempDir recording("kernelscope-recording-test");
  Toolchain real;
  real.rustc.path = "/bin/sh";  // the tool, named ${RUSTC} in the recording
  {
    TempDir first("kernelscope-recorded-run");
    std::ofstream(first.path() / "in") << "read from " << first.path().string() << "\n";
    test::RecordingRunner recorder(real, test::sourceDir());
    ProcessResult r = recorder.run(shellTool(first.path()));
    CHECK(r.exitCode == 3);
    CHECK(r.out == "read from " + first.path().string() + "\n");
    recorder.save(recording.path());
    // The run's directory is a placeholder in the command, its output and the file it wrote.
    const std::string commands = readWholeFile(recording.path() / "commands.json");
    CHECK(commands.find("\"${TMP1}\"") != std::string::npos);
    CHECK(commands.find(first.path().string()) == std::string::npos);
    CHECK(readWholeFile(recording.path() / "1-rustc.stdout") == "read from ${TMP1}\n");
    CHECK(readWholeFile(recording.path() / "1-rustc-k.ll") == "made in ${TMP1}\n");
  }

  // Replayed with a tool that is not there: nothing starts, the answer is the recorded one.
  Toolchain elsewhere;
  elsewhere.rustc.path = "/nonexistent/sh";
  test::ReplayingRunner replayer(recording.path(), elsewhere, test::sourceDir());
  TempDir second("kernelscope-replayed-run");
  std::ofstream(second.path() / "in") << "read from " << second.path().string() << "\n";
  ProcessSpec spec = shellTool(second.path());
  spec.argv[0] = "/nonexistent/sh";
  ProcessResult r = replayer.run(spec);
  CHECK(r.started);
  CHECK(r.exitCode == 3);
  CHECK(r.out == "read from " + second.path().string() + "\n");
  CHECK(r.err == "warned\n");
  CHECK(readWholeFile(second.path() / "out/k.ll") == "made in " + second.path().string() + "\n");
  CHECK(replayer.misses().empty());

  // Another argument, or another input than the recorded one: a clear failure.
  spec.argv.push_back("--more");
  r = replayer.run(spec);
  CHECK_FALSE(r.started);
  CHECK(r.error.starts_with("no recording for: rustc -c "));
  CHECK(r.error.find("the nearest recorded one has `cwd=") == std::string::npos);
  CHECK(r.error.find("where this has `--more`") != std::string::npos);
  spec.argv.pop_back();
  std::ofstream(second.path() / "in") << "something else\n";
  r = replayer.run(spec);
  CHECK_FALSE(r.started);
  CHECK(r.error.find("where this has `input ${TMP1}/in ") != std::string::npos);
  CHECK(replayer.misses().size() == 2);
  // A command that did not start is no answer to keep: such a recording is refused.
  test::RecordingRunner failing(real, test::sourceDir());
  ProcessSpec missing;
  missing.argv = {"/nonexistent/tool"};
  CHECK_FALSE(failing.run(missing).started);
  CHECK_THROWS_WITH_AS(failing.save(recording.path() / "refused"),
                       doctest::Contains("cannot record"), std::runtime_error);
  CHECK_FALSE(fs::exists(recording.path() / "refused"));
  CHECK_THROWS_WITH_AS(test::replayToolchain(second.path(), test::sourceDir()),
                       doctest::Contains("no recording in "), std::runtime_error);
}

TEST_CASE("the recordings are what the toolchain here makes: recorded again, they are the same") {
  test::requireToolchain();
  for (const std::string& kernel : test::recordedFiles()) {
    CAPTURE(kernel);
    INFO("re-record: tests/golden/tools/README.md");
    const fs::path file = test::sourceDir() / kernel;
    Toolchain tc = test::toolchain();
    auto recorder = std::make_shared<test::RecordingRunner>(tc, test::sourceDir());
    tc.runner = recorder;
    const CompileResult real = compileKernel(tc, {file, std::nullopt}, resolveOptions({}));
    if (const char* record = std::getenv("KS_RECORD_TOOLS"); record && std::string(record) == "1") {
      recorder->save(test::recordingOf(file));
      MESSAGE("recorded " << test::recordingOf(file).string());
      continue;
    }
    const Toolchain replaying = test::replayToolchain(test::recordingOf(file), test::sourceDir());
    const auto& recorded =
        std::dynamic_pointer_cast<const test::ReplayingRunner>(replaying.runner)->runs();
    const std::vector<test::RecordedRun> again = recorder->runs();
    REQUIRE(again.size() == recorded.size());
    for (size_t i = 0; i < again.size(); ++i) {
      CAPTURE(i);
      CHECK(again[i].command == recorded[i].command);
      CHECK(again[i].exitCode == recorded[i].exitCode);
      CHECK(again[i].out == recorded[i].out);
      CHECK(again[i].err == recorded[i].err);
      // A cubin holds the paths of the run that made it: compared by its names only.
      std::vector<std::string> files, recordedFiles;
      for (const auto& [path, content] : again[i].files) files.push_back(path);
      for (const auto& [path, content] : recorded[i].files) recordedFiles.push_back(path);
      CHECK(files == recordedFiles);
      for (const auto& written : again[i].files)  // (no structured binding: CHECK captures it)
        if (written.first.ends_with(".yaml"))
          CHECK_MESSAGE(
              unwrappedYaml(written.second) == unwrappedYaml(recorded[i].files.at(written.first)),
              written.first);
        else if (!written.first.ends_with(".cubin"))
          CHECK_MESSAGE(written.second == recorded[i].files.at(written.first), written.first);
    }
    // And a compile on the recording (at this toolchain's paths) is the compile on the toolchain.
    Toolchain replayHere = test::toolchain();
    replayHere.runner = std::make_shared<test::ReplayingRunner>(test::recordingOf(file), replayHere,
                                                                test::sourceDir());
    CHECK(sameText(dumpResult(compileKernel(replayHere, {file, std::nullopt}, resolveOptions({}))),
                   dumpResult(real)));
  }
}
