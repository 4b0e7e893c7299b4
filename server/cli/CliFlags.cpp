// The table of the commands' flags. See CliFlags.h.
#include "CliFlags.h"

#include <algorithm>
#include <iterator>

#include "Options.h"

namespace ks {

namespace {

/// The commands that compile: each takes the options for how to compile (readCompileOption).
constexpr std::string_view kCompiling = "explain report diff compare passes run profile check";

/// The table (constant-initialized: no order of static initialization to mind).
constexpr CliFlag kFlags[] = {
    {"lsp", "--port", "N",
     "serve one client on 127.0.0.1:N instead of stdio; the client must send the token of "
     "$KERNELSCOPE_LSP_TOKEN (or of --token-file) as initializationOptions.token"},
    {"lsp", "--token-file", "FILE",
     "the token for --port, read from FILE (only its owner may read it)"},
    {"lsp", "--lit-test", "[FILE]",
     "read `---`-separated JSON messages (from FILE or stdin) and print every message the "
     "server sends as pretty JSON; compiles run inline and durations are reported as 0"},
    {"lsp", "--debounce-ms", "N", "wait N ms after an edit before compiling (default: adaptive)"},
    {"lsp", "--workers", "N", "compile on N threads (default: the number of cores; 0: inline)"},
    {"lsp", "--rustc", "PATH", "the rustc to use (default: discovered)"},
    {"lsp", "--stdio", "", "talk over stdin and stdout (the default)"},
    {"explain", "--line", "N", "only line N (1-based)"},
    {"compare", "--kernel", "NAME", "the kernel to compare (default: kernels of the same name)"},
    {"passes", "--kernel", "NAME", "the kernel whose passes to show (needed)"},
    {"report", "--kernel", "NAME",
     "the kernel (default: the only one, or the only one with a spec)"},
    {"run profile", "--kernel", "NAME",
     "the kernel (default: the only one, or the only one with a spec); several --kernel: each "
     "of them in turn (--jobs N: N at once)"},
    {"run profile", "--all-kernels", "", "every kernel of the file that has a launch spec"},
    {"explain report diff", "--stages", "", ""},
    {"report", "-o", "FILE", "the page to write (default kernelscope-report.html)"},
    {"report", "--baseline", "FILE",
     "each kernel's figures against a `kernelscope check` baseline (kernelscope-baseline.json)"},
    {"report", "--profile-result", "FILE",
     "the heat of a recorded profile on the lines: what gpu-exec wrote for the request of "
     "`profile --save-request` (with the same --kernel and --spec)"},
    {"compare", "--stages", "LIST", "ptx, sass or ptx,sass (default)"},
    {"diff", "--vs-arch", "sm_XX",
     "compare FILE with itself compiled for this arch (--arch: the first side's)"},
    {"diff", "--vs-opt", "N",
     "compare FILE with itself compiled at this opt level (--opt: the first side's)"},
    {"passes", "--llvm", "", "only LLVM's passes (default: LLVM's and MIR's)"},
    {"passes", "--mir", "", "only MIR's passes (default: LLVM's and MIR's)"},
    {"run profile report", "--spec", "ITEMS",
     "spec items added to the kernel's own ('n = 4096; block = 128')"},
    {"run", "--runs", "N", "timed launches (default 20)"},
    {"run", "--warmup", "N",
     "launches before the timed ones (default 2); the first one's outputs are reported"},
    {"run", "--dump", "DIR", "write every buffer after the first launch to DIR/NAME.npy"},
    {"run", "--sweep", "NAME=V1,V2,...",
     "run once per value of a spec variable (several --sweep: every combination): each time "
     "next to the occupancy the static model predicts, the fastest named, outputs compared"},
    {"run profile", "--jobs", "N",
     "with --sweep, several --kernel or --all-kernels: N configurations or kernels at once, e.g. "
     "as parallel srun job steps (default 1: each has the GPU to itself)"},
    {"run profile", "--runner", "", ""},
    {"run profile", "--remote-kernelscope", "PATH",
     "the kernelscope there (default: kernelscope on its PATH)"},
    {"run profile", "--timeout", "S", "give up on a launch after S seconds (default 300)"},
    {"profile", "--ncu", "", ""},
    {"profile", "--top", "N", "only the N lines with the most stall samples"},
    {"profile", "--baseline", "last|FILE",
     "each line's change since the kernel's last profile (kept in the cache directory) or a "
     "saved one (--json's output), lines matched through the edit"},
    {"compare", "--run", "",
     "run both on the Rust kernel's launch spec (the twin's own spec if it has one): times, "
     "bandwidth, checksums; takes run's options, and --replay twice (the Rust side's result, "
     "then the CUDA side's)"},
    {"compare", "--profile", "",
     "profile both under Nsight Compute as profile does: hot lines side by side; takes "
     "profile's options"},
    {kCompiling, "--arch", "", ""},
    {kCompiling, "--opt", "", ""},
    {kCompiling, "--profile", "", ""},
    {"doctor", "--profile", "NAME", "also show the tools this toolchain profile needs"},
    {"check", "-p", "NAME",
     "the package of the workspace to check (also --package; default: the crate of CRATE, a "
     "directory, Cargo.toml or kernel file, or of the current directory)"},
    {"check", "--manifest-path", "FILE", "the Cargo.toml whose workspace -p looks in"},
    {"check", "--baseline", "FILE",
     "the figures to compare with (default: kernelscope-baseline.json beside Cargo.toml)"},
    {"check", "--bless", "", "write today's figures as the baseline; budgets still fail"},
    {"check", "--format", "FMT",
     "text (default; file:line: error[rule]: ...), json, or github (Actions annotations)"},
    {"check", "--sarif", "FILE", "also write the findings as SARIF 2.1.0 (code scanning)"},
    {"check", "--block-size", "N", "threads per block for min-occupancy (default 256)"},
    {"explain", "--annotate", "",
     "explain each instruction and its modifiers (SASS: its control code, and what it waits on)"},
    {"explain", "--costs", "",
     "the full table of what each line costs before it runs: live registers, local memory, "
     "memory instructions, issue cycles (a lower bound), and the lines to look at first"},
    {"explain report", "--remarks", "WHICH",
     "optimizer remarks under each line: default (missed, and what was inlined, hoisted, "
     "unrolled or vectorized), all, missed, passed, analysis or none"},
    {"explain report", "--block-size", "N",
     "threads per block for the occupancy column (default 256)"},
    {"diff passes", "--context", "N", "unchanged lines around each change (default 3)"},
    {"diff", "--summary", "", "only the summary line (\"PTX +3 −1, SASS +2, regs 10→12\")"},
    {"diff", "--raw", "", "compare lines as printed (keep register and label numbers)"},
    {"explain passes run profile check", "--json", "", "machine-readable output"},
    {"explain", "--stream", "",
     "each group of stages as soon as it exists: with --json, one JSON object per line (MIR, "
     "LLVM IR and PTX first, then the resources, then SASS, each with \"pending\"; the last line "
     "is --json's result); as text, a line on stderr as each group is ready"},
    {"explain diff compare run profile", "--save-temps", "DIR",
     "keep every tool's raw output in DIR"},
    {"passes", "--save-temps", "DIR",
     "keep rustc's -print-changed output, final IR and MIR dumps in DIR"},
    {"run profile", "--save-request", "FILE",
     "write the gpu-exec request (cubin and plan) to FILE instead of launching"},
    {"run profile", "--replay", "FILE",
     "show a result that gpu-exec wrote (kernelscope gpu-exec < REQUEST > FILE)"},
    {"explain report diff compare passes run profile", "--extern", "NAME=PATH",
     "a crate the file uses, for a file outside any crate (repeat for more): the crate's "
     "directory (built for the GPU as a path dependency is) or an nvptx64 .rlib"},
    {kCompiling, "--verbose", "",
     "say on stderr how the compiles were answered (\"0 compiled, 1 from the result cache\": "
     "an unchanged kernel is not compiled again)"},
};

}  // namespace

const std::vector<CliFlag>& cliFlagTable() {
  static const std::vector<CliFlag> table(std::begin(kFlags), std::end(kFlags));
  return table;
}

namespace {

/// The commands an entry names ("diff passes": diff, passes).
std::vector<std::string_view> commandsOf(const CliFlag& f) {
  std::vector<std::string_view> commands;
  for (std::string_view rest = f.commands; !rest.empty();) {
    const size_t space = std::min(rest.find(' '), rest.size());
    commands.push_back(rest.substr(0, space));
    rest.remove_prefix(std::min(space + 1, rest.size()));
  }
  return commands;
}

bool listsCommand(const CliFlag& f, std::string_view command) {
  const auto commands = commandsOf(f);
  return std::find(commands.begin(), commands.end(), command) != commands.end();
}

/// `text` wrapped into lines of at most `width` characters, each after `indent` spaces but
/// the first (a word longer than a line stands alone).
std::string wrap(std::string_view text, size_t width, size_t indent) {
  std::string out, line;
  while (!text.empty()) {
    const size_t space = std::min(text.find(' '), text.size());
    const std::string_view word = text.substr(0, space);
    text.remove_prefix(std::min(space + 1, text.size()));
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n" + std::string(indent, ' ');
      line.clear();
    }
    line += (line.empty() ? "" : " ") + std::string(word);
  }
  return out + line;
}

}  // namespace

std::vector<std::string_view> cliCommands() {
  std::vector<std::string_view> all;
  for (const CliFlag& f : cliFlagTable())
    for (std::string_view command : commandsOf(f))
      if (std::find(all.begin(), all.end(), command) == all.end()) all.push_back(command);
  return all;
}

std::vector<const CliFlag*> cliFlagsOf(std::string_view command) {
  std::vector<const CliFlag*> flags;
  for (const CliFlag& f : cliFlagTable())
    if (listsCommand(f, command)) flags.push_back(&f);
  return flags;
}

bool commandTakesFlag(std::string_view command, std::string_view flag) {
  const auto flags = cliFlagsOf(command);
  return std::any_of(flags.begin(), flags.end(), [&](const CliFlag* f) { return f->flag == flag; });
}

std::string_view cliFlagValue(const CliFlag& f) {
  if (!f.help.empty()) return f.value;
  const OptionSpec* option = optionByCliFlag(f.flag);
  return option ? option->cliValue : "";
}

std::string_view cliFlagHelp(const CliFlag& f) {
  if (!f.help.empty()) return f.help;
  const OptionSpec* option = optionByCliFlag(f.flag);
  return option ? option->help : "";
}

std::string cliFlagLines(std::string_view command) {
  constexpr size_t kHelpColumn = 26, kWidth = 100;
  std::string out;
  for (const CliFlag* f : cliFlagsOf(command)) {
    std::string line = "      " + std::string(f->flag);
    if (!cliFlagValue(*f).empty()) line += " " + std::string(cliFlagValue(*f));
    line.resize(std::max(line.size() + 1, kHelpColumn), ' ');
    out += line + wrap(cliFlagHelp(*f), kWidth - line.size(), kHelpColumn) + "\n";
  }
  return out;
}

}  // namespace ks
