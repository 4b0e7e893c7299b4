// Command-line arguments, exit statuses and the diagnostic printer that the `kernelscope`
// subcommands share.
//
// Every command that compiles takes the same options for how to compile (--arch, --opt,
// --profile, --save-temps) and may take a stage list; they are read here once, with the
// same checks and messages, so the commands cannot drift apart.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Compile.h"
#include "Crate.h"

namespace ks {

/// The exit status of every command (README, "Exit status"; `kernelscope --help`).
enum ExitStatus : int {
  kExitOk = 0,
  kExitFailed = 1,            // the kernel does not compile, or a step (a tool, the GPU) failed
  kExitUsage = 2,             // bad arguments or input: an unknown option, value or kernel, a
                              // file that cannot be read
  kExitStageUnavailable = 3,  // a requested stage is unavailable (the others are shown)
  kExitDifferent = 4,         // diff: the two sides differ
};

/// Prints a diagnostic as compilers do, one line: `file:line:col: severity[code]: message`,
/// or `source: severity[code]: message` when it has no position, then one `note:` line per
/// related label, note or help at another span. Every command uses it.
void printDiagnostic(std::ostream&, const Diagnostic&);
/// "error", "warning", "note", "help".
std::string_view severityName(Severity);

/// The arguments of one subcommand, read front to back.
class ArgReader {
 public:
  /// `command` names the subcommand in the table of flags (CliFlags.h): "explain", "run", ...
  ArgReader(std::string_view command, int argc, char** argv)
      : command_(command), argc_(argc), argv_(argv) {}
  std::string_view command() const { return command_; }
  /// The next argument; nullopt once all were read.
  std::optional<std::string_view> next() {
    return index_ < argc_ ? std::optional<std::string_view>(argv_[index_++]) : std::nullopt;
  }
  /// The value of the option just read (`--arch sm_80`); nullopt when the option came last.
  std::optional<std::string> value() {
    auto v = next();
    return v ? std::optional<std::string>(*v) : std::nullopt;
  }

 private:
  std::string_view command_;
  int argc_;
  char** argv_;
  int index_ = 0;
};

/// Whether --verbose was given (read with the compile options: readCompileOption).
bool& cliVerbose();

/// Options for a command: what the command line leaves unset, the engine resolves
/// (kernelscope.toml: applySettingsFile; the crate's `[package.metadata.kernelscope]`; the
/// defaults).
/// The workspace is trusted: the user ran the command on purpose.
CompileOptions cliCompileOptions();

/// The CLI's layer of options (Engine::setOptionLayer): the nearest kernelscope.toml in the
/// directories above `file`, read and checked as the language server reads the workspace's,
/// fills what the command line left unset (arch, optLevel, toolchainProfile, stages,
/// extraRustcFlags), so that a file compiles for the same arch from the CLI and the editor.
/// Its problems go to stderr, once per file.
void applySettingsFile(const std::filesystem::path& file, CompileOptions& options);
/// The kernelscope.toml that applies to `file`: the nearest in its directory or above; empty
/// when there is none.
std::filesystem::path settingsFileAbove(const std::filesystem::path& file);

/// Why the kernel file a command was given cannot be compiled ("no such file", "is a FIFO,
/// not a regular file", "is 1024 MiB, more than ..."), or nullopt. Never blocks on a FIFO.
std::optional<std::string> inputFileProblem(const std::string& file);

/// Why a compile produced no code, for the last line of a command's errors: the step
/// that failed ("rustc timed out after 120.0 s (its time limit)") or "does not compile".
std::string failureText(const CompileResult&);

/// Prints, on stderr, the notes about workspace values applied because the workspace is
/// trusted (rustc flags that load code or write files, a profile that runs cargo).
void printWorkspaceTrustNotes(const std::vector<Diagnostic>&);

/// Reads `arg` when it is one of the options for how to compile (--arch sm_XX, --opt N,
/// --profile NAME, checked by the options table of Options.h; --save-temps DIR; --verbose) into
/// `options`, taking its value from `args`; an arch or opt level read so is marked chosen. Returns
/// nullopt when `arg` is none of them, an empty string when it was read, otherwise what is wrong
/// with its value. A flag that the table of flags (CliFlags.h) does not give `args.command()` is
/// an unknown option here, so that a command takes no flag its --help does not list.
std::optional<std::string> readCompileOption(std::string_view arg, ArgReader& args,
                                             CompileOptions& options);

/// Which crate a command means, as cargo's own flags say it: the package `-p` names in the
/// workspace of `--manifest-path` (or of the current directory), else the package of
/// `target` (a crate directory, a Cargo.toml or a file in it; empty: the current directory).
struct CargoSelection {
  std::string target, package, manifestPath;
};
/// The crate of `selection`, from cargo's metadata; nullopt with the reason in `problem`.
std::optional<CratePackage> cargoCrate(const Toolchain&, const CargoSelection& selection,
                                       std::string& problem);

/// A file as a terminal user (or a CI annotation, or SARIF's %SRCROOT%) reads it: relative
/// to the working directory when under it, else as it is.
std::string shownPath(const std::string& file);

/// Parses a stage list such as "ptx,sass" into `stages` (checked by the options table,
/// Options.h); the problem when a name is unknown.
std::optional<std::string> parseStageList(std::string_view list, std::vector<Stage>& stages);

}  // namespace ks
