// Recorded tool runs: a compile's rustc, ptxas and nvdisasm answered from a recording instead of
// started, so that the tests of what kernelscope makes of their output (parsers, line map, the
// compile's steps, the LSP features) run without the toolchain.
//
// A recording is a folder under tests/golden/tools/ (README.md there says how to make one):
// `toolchain.json` (the versions it was made with) and `commands.json`, one entry per tool
// command — the command normalised (machine-specific paths as placeholders: `${SRC}` the
// source tree, `${TMP1}`.. the temporary directories in the order the command names them,
// `${SYSROOT}`, `${RUSTC}`, `${PTXAS}`, ...; the digests of the inputs it read from those
// directories), its exit status, its stdout and stderr and the files it wrote, each in a file
// of its own beside. Text is stored with the same placeholders and written back with the
// paths of the compile that replays it.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "Process.h"
#include "Toolchain.h"

namespace ks::test {

/// What a command is matched by: its words with placeholders, and what each placeholder
/// stands for in this run.
struct NormalisedCommand {
  std::vector<std::string> words;  // argv, then `cwd=`, `env NAME=`, `stdin ` and `input ` lines
  std::map<std::string, std::filesystem::path> temps;  // "${TMP1}" -> this run's directory
  /// `rustc --crate-type cdylib ...`: the tool by name and its arguments, for messages.
  std::string display() const;
};

/// Puts placeholders for the paths of one machine and run into commands and texts, and the
/// paths of another back.
class PathPlaceholders {
 public:
  /// The toolchain's paths (rustc, the sysroot, ptxas, ...) and the source tree.
  PathPlaceholders(const Toolchain&, const std::filesystem::path& sourceDir);
  NormalisedCommand normalise(const ProcessSpec&) const;
  /// `text` with every known path, and each of `temps`, as its placeholder.
  std::string toPlaceholders(std::string text,
                             const std::map<std::string, std::string>& temps) const;
  /// The reverse, with the temporary directories of `temps`.
  std::string fromPlaceholders(std::string text,
                               const std::map<std::string, std::filesystem::path>& temps) const;

 private:
  // path -> placeholder, longest first (a tool's real path besides the one it was given)
  std::vector<std::pair<std::string, std::string>> paths_;
  std::map<std::string, std::string> given_;  // placeholder -> the path it was given as
};

/// One recorded command's answer.
struct RecordedRun {
  std::vector<std::string> command;
  int exitCode = 0;
  int signal = 0;
  std::string out, err;  // with placeholders
  std::map<std::string, std::string>
      files;  // "${TMP1}/k.ll" -> its content (text with placeholders)
};

/// Runs the real tools and keeps every command with its answer; save() writes the recording.
class RecordingRunner : public ToolRunner {
 public:
  RecordingRunner(const Toolchain& real, const std::filesystem::path& sourceDir);
  ProcessResult run(const ProcessSpec&) const override;
  /// Replaces `dir` with the recording of every command run so far; throws std::runtime_error
  /// when one of them did not start, timed out or was cancelled.
  void save(const std::filesystem::path& dir) const;
  std::vector<RecordedRun> runs() const;

 private:
  Toolchain toolchain_;
  PathPlaceholders placeholders_;
  mutable std::mutex mutex_;
  mutable std::vector<RecordedRun> runs_;
  mutable std::vector<std::string> unrecordable_;  // commands that did not start or end
};

/// Answers the commands of a recording; any other command is not started, and fails with
/// "no recording for: rustc ..." (also kept in misses()).
class ReplayingRunner : public ToolRunner {
 public:
  /// `toolchain`: the one the replaying compile runs with (replayToolchain's, or the real one).
  ReplayingRunner(const std::filesystem::path& dir, const Toolchain& toolchain,
                  const std::filesystem::path& sourceDir);
  ProcessResult run(const ProcessSpec&) const override;
  std::vector<std::string> misses() const;
  const std::vector<RecordedRun>& runs() const { return runs_; }

 private:
  std::string whyNoRecording(const NormalisedCommand&) const;
  PathPlaceholders placeholders_;
  std::vector<RecordedRun> runs_;
  mutable std::mutex mutex_;
  mutable std::vector<std::string> misses_;
};

/// The toolchain a recording was made with, its tools at paths that need not exist, answering
/// through a ReplayingRunner: compiles with it start no tool. Throws std::runtime_error naming
/// the folder when it holds no recording.
Toolchain replayToolchain(const std::filesystem::path& dir, const std::filesystem::path& sourceDir);

/// The versions of `tc` as toolchain.json keeps them.
std::string toolchainVersions(const Toolchain& tc);

}  // namespace ks::test
