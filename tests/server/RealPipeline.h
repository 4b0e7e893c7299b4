// The server on the real pipeline for tests: options with the real compiler (and the real GPU
// jobs), which RequireToolchain.h gates, or with a compiler whose tools answer from a recording
// (replayedOptions), which needs no toolchain.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "Engine.h"
#include "Files.h"
#include "RequireToolchain.h"
#include "SourceText.h"
#include "TestClient.h"
#include "ToolRecording.h"

namespace ks::test {

/// The 0-based line of `text` that contains `needle`.
inline int lineOf(const std::string& text, std::string_view needle) {
  auto lines = splitLines(text);
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].find(needle) != std::string_view::npos) return static_cast<int>(i);
  FAIL("no line contains " << needle);
  return -1;
}

/// Compares `actual` with the golden file, naming the first line that differs; UPDATE_GOLDEN=1
/// rewrites it instead.
inline void checkGolden(const std::filesystem::path& golden, const std::string& actual) {
  if (const char* u = std::getenv("UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::filesystem::create_directories(golden.parent_path());
    std::ofstream out(golden, std::ios::binary);
    out << actual;
    REQUIRE_MESSAGE(out.good(), "cannot write " << golden.string());
    MESSAGE("updated " << golden.string());
    return;
  }
  REQUIRE_MESSAGE(std::filesystem::exists(golden),
                  golden.string() << " is missing (UPDATE_GOLDEN=1 creates it)");
  const std::string expected = readWholeFile(golden.string());
  if (expected == actual) return;
  auto e = splitLines(expected), a = splitLines(actual);
  size_t i = 0;
  while (i < e.size() && i < a.size() && e[i] == a[i]) ++i;
  FAIL(golden.string() << " differs at line " << i + 1 << " (UPDATE_GOLDEN=1 rewrites it)"
                       << "\n  expected: " << (i < e.size() ? std::string(e[i]) : "<end>")
                       << "\n  actual:   " << (i < a.size() ? std::string(a[i]) : "<end>"));
}

/// Server options on `engine`, kept for the rest of the test run (a server may outlive its
/// test's scope on its workers), which `out` then names.
inline server::ServerOptions optionsOn(Engine*& out, std::unique_ptr<Engine> engine,
                                       const std::string& defaultRustc) {
  static std::vector<std::unique_ptr<Engine>> keep;
  keep.push_back(std::move(engine));
  out = keep.back().get();
  server::ServerOptions o = TestClient::options(/*workers=*/1, std::chrono::milliseconds(0));
  server::useEngine(o, *out, defaultRustc);
  return o;
}

inline server::ServerOptions realOptions(Engine*& out, ToolchainSettings settings = {}) {
  const std::string rustc = settings.rustc;
  return optionsOn(out, std::make_unique<Engine>(std::move(settings), nullptr), rustc);
}

/// Server options on an engine whose tools answer from the recording of `kernel` (relative
/// to the source tree, "examples/saxpy.rs"; tests/golden/tools/): a conversation about a
/// recorded kernel, as it is on disk, runs without the toolchain. The recording holds the
/// compile of the file with the default options, so a document whose text is the file's
/// compiles as the file, and with remarks (the server's settings leave them off, and it
/// publishes them only when asked: the tools' other output is the same). Any other text is an
/// edit no recording holds: its compile fails, naming the command.
inline server::ServerOptions replayedOptions(Engine*& out, const std::string& kernel) {
  const std::filesystem::path source = KS_SOURCE_DIR;
  auto engine = std::make_unique<Engine>();
  engine->useToolchain(replayToolchain(
      source / "tests/golden/tools" / std::filesystem::path(kernel).stem(), source));
  server::ServerOptions o = optionsOn(out, std::move(engine), "");
  o.compile = [engine = out](const CompileInput& in, const CompileOptions& options,
                             const CancellationToken& cancel) {
    CompileInput asOnDisk = in;
    if (asOnDisk.text && asOnDisk.overlays.empty() && *asOnDisk.text == readWholeFile(in.path))
      asOnDisk.text.reset();
    CompileOptions asRecorded = options;
    asRecorded.remarks = true;
    return engine->compile(asOnDisk, asRecorded, cancel);
  };
  return o;
}

}  // namespace ks::test
