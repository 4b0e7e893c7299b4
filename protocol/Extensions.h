// The kernelscope LSP extensions: params and results of every `kernelscope/` method.
//
// Each type is followed by its to_json/from_json. `extensionMethods()` lists every
// extension with an example of its params and result built from these types; the test
// of docs/lsp-extensions.md compares the document against that table, so the contract
// and the code cannot drift apart silently.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "Protocol.h"

namespace ks::lsp {

/// A position in a source file. `uri` is omitted when it is the requested document.
struct SourcePosition {
  std::optional<std::string> uri;
  int line = 0;
  int character = 0;
};
inline void to_json(json& j, const SourcePosition& s) {
  j = {{"line", s.line}, {"character", s.character}};
  detail::writeOptional(j, "uri", s.uri);
}

/// One frame of an inline chain, innermost first.
struct InlineFrame {
  std::string uri;
  int line = 0;
  int character = 0;
  std::string function;
};
inline void to_json(json& j, const InlineFrame& f) {
  j = {{"uri", f.uri}, {"line", f.line}, {"character", f.character}, {"function", f.function}};
}

// ---------------------------------------------------------------------------------------
// kernelscope/artifact: this request is a kernelscope extension.

/// What a view of an artifact leaves out (see docs/lsp-extensions.md, Filters). Every key
/// is off unless the client turns it on.
struct ArtifactFilters {
  bool directives = false;
  bool debugLocations = false;
  bool unusedLabels = false;
  bool comments = false;
  bool libraryFunctions = false;
  bool padding = false;
  bool compactSass = false;  // not a filter of lines: SASS without nvdisasm's column padding
  bool operator==(const ArtifactFilters&) const = default;
};
inline void from_json(const json& j, ArtifactFilters& f) {
  if (!j.is_object()) throw json::type_error::create(302, "filters must be an object", &j);
  auto read = [&](const char* key, bool& out) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return;
    if (!it->is_boolean())
      throw json::type_error::create(302, std::string("filters.") + key + " must be a boolean", &j);
    out = it->get<bool>();
  };
  read("directives", f.directives);
  read("debugLocations", f.debugLocations);
  read("unusedLabels", f.unusedLabels);
  read("comments", f.comments);
  read("libraryFunctions", f.libraryFunctions);
  read("padding", f.padding);
  read("compactSass", f.compactSass);
}

struct ArtifactParams {
  TextDocumentIdentifier textDocument;
  std::string stage;
  std::optional<int> revision;
  std::optional<ArtifactFilters> filters;  // omitted: the whole text
};
inline void from_json(const json& j, ArtifactParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  j.at("stage").get_to(p.stage);
  detail::readOptional(j, "revision", p.revision);
  detail::readOptional(j, "filters", p.filters);
}

/// A run of artifact lines (inclusive, 0-based) that came from one source position.
struct ArtifactSegment {
  int start = 0, end = 0;
  SourcePosition source;
  std::optional<int> chain;  // index into ArtifactResult::chains when the code was inlined
};
inline void to_json(json& j, const ArtifactSegment& s) {
  j = {{"start", s.start}, {"end", s.end}, {"source", s.source}};
  detail::writeOptional(j, "chain", s.chain);
}

struct ArtifactKernel {
  std::string name;
  int start = 0, end = 0;
};
inline void to_json(json& j, const ArtifactKernel& k) {
  j = {{"name", k.name}, {"start", k.start}, {"end", k.end}};
}

struct ArtifactResult {
  std::string uri;  // the virtual document
  std::string stage;
  int revision = 0;
  std::string languageId;
  std::string text;
  std::vector<ArtifactSegment> segments;
  /// Each inline chain once (innermost frame first); segments refer to them by index.
  std::vector<std::vector<InlineFrame>> chains;
  std::vector<ArtifactKernel> kernels;
};
inline void to_json(json& j, const ArtifactResult& r) {
  j = {{"uri", r.uri},           {"stage", r.stage},
       {"revision", r.revision}, {"languageId", r.languageId},
       {"text", r.text},         {"segments", r.segments},
       {"chains", r.chains},     {"kernels", r.kernels}};
}

// ---------------------------------------------------------------------------------------
// kernelscope/lineMap: this request is a kernelscope extension.

struct LineMapParams {
  TextDocumentIdentifier textDocument;
  int line = 0;
  std::optional<ArtifactFilters> filters;  // the lines of the views with these filters
};
inline void from_json(const json& j, LineMapParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  j.at("line").get_to(p.line);
  detail::readOptional(j, "filters", p.filters);
}

struct LineRange {
  int start = 0, end = 0;  // inclusive, 0-based artifact lines
};
inline void to_json(json& j, const LineRange& r) { j = {{"start", r.start}, {"end", r.end}}; }

struct LineMapResult {
  int revision = 0;
  std::map<std::string, std::vector<LineRange>> stages;   // written on this line
  std::map<std::string, std::vector<LineRange>> inlined;  // inlined through a call here
  std::map<std::string, int> counts;                      // instructions in `stages`
};
inline void to_json(json& j, const LineMapResult& r) {
  j = {
      {"revision", r.revision}, {"stages", r.stages}, {"inlined", r.inlined}, {"counts", r.counts}};
}

// ---------------------------------------------------------------------------------------
// kernelscope/sourceLocation: this request is a kernelscope extension.

struct SourceLocationParams {
  std::string uri;  // a kernelscope: virtual document
  int line = 0;
  std::optional<ArtifactFilters> filters;  // `line` is a line of the view with these filters
};
inline void from_json(const json& j, SourceLocationParams& p) {
  j.at("uri").get_to(p.uri);
  j.at("line").get_to(p.line);
  detail::readOptional(j, "filters", p.filters);
}

struct SourceLocationResult {
  std::optional<Location> location;
  std::vector<InlineFrame> inlineChain;
};
inline void to_json(json& j, const SourceLocationResult& r) {
  j = {{"location", r.location ? json(*r.location) : json(nullptr)},
       {"inlineChain", r.inlineChain}};
}

// ---------------------------------------------------------------------------------------
// kernelscope/kernels: this request is a kernelscope extension.

struct KernelsParams {
  TextDocumentIdentifier textDocument;
};
inline void from_json(const json& j, KernelsParams& p) {
  j.at("textDocument").get_to(p.textDocument);
}

struct InstructionCounts {
  int ptx = 0, sass = 0;
};
inline void to_json(json& j, const InstructionCounts& c) { j = {{"ptx", c.ptx}, {"sass", c.sass}}; }

/// Theoretical occupancy at one block size.
struct OccupancySummary {
  int blockSize = 0;
  int activeWarpsPerSM = 0;
  int maxWarpsPerSM = 0;
  int percent = 0;
  std::string limiter;  // "registers", "shared memory", "warps", ...
};
inline void to_json(json& j, const OccupancySummary& o) {
  j = {{"blockSize", o.blockSize},
       {"activeWarpsPerSM", o.activeWarpsPerSM},
       {"maxWarpsPerSM", o.maxWarpsPerSM},
       {"percent", o.percent},
       {"limiter", o.limiter}};
}

/// What ptxas reported for a kernel. Written as fields of the kernel's own object, in the
/// LSP reply and in `kernelscope explain --json` alike.
struct ResourceUsage {
  int registers = 0, barriers = 0, stackFrame = 0, spillStores = 0, spillLoads = 0;
  int sharedMemory = 0, constantMemory = 0, localMemory = 0;
};
inline void to_json(json& j, const ResourceUsage& r) {
  j = {{"registers", r.registers},           {"barriers", r.barriers},
       {"stackFrame", r.stackFrame},         {"spillStores", r.spillStores},
       {"spillLoads", r.spillLoads},         {"sharedMemory", r.sharedMemory},
       {"constantMemory", r.constantMemory}, {"localMemory", r.localMemory}};
}

struct KernelSummary {
  std::string name;
  std::string demangled;
  Range range;
  std::optional<ResourceUsage> resources;  // empty: ptxas did not run; the fields are omitted
  InstructionCounts instructions;
  std::optional<OccupancySummary> occupancy;  // omitted for an architecture without known limits
};
inline void to_json(json& j, const KernelSummary& k) {
  j = {{"name", k.name},
       {"demangled", k.demangled},
       {"range", k.range},
       {"instructions", k.instructions}};
  if (k.resources) j.update(json(*k.resources));
  detail::writeOptional(j, "occupancy", k.occupancy);
}

struct KernelsResult {
  int revision = 0;
  std::string arch;
  std::vector<KernelSummary> kernels;
};
inline void to_json(json& j, const KernelsResult& r) {
  j = {{"revision", r.revision}, {"arch", r.arch}, {"kernels", r.kernels}};
}

// ---------------------------------------------------------------------------------------
// kernelscope/lineCosts: this request is a kernelscope extension.

struct LineCostsParams {
  TextDocumentIdentifier textDocument;
};
inline void from_json(const json& j, LineCostsParams& p) {
  j.at("textDocument").get_to(p.textDocument);
}

/// Registers live at once: general, predicate, uniform.
struct LiveRegisters {
  int gpr = 0, predicate = 0, uniform = 0;
};
inline void to_json(json& j, const LiveRegisters& l) {
  j = {{"gpr", l.gpr}, {"predicate", l.predicate}, {"uniform", l.uniform}};
}

/// The memory instructions of one address space on a line.
struct MemoryAccess {
  std::string space;  // "global", "shared", "local", "constant", "generic", ...
  int loads = 0, stores = 0, atomics = 0, widestBits = 0;
};
inline void to_json(json& j, const MemoryAccess& m) {
  j = {{"space", m.space},
       {"loads", m.loads},
       {"stores", m.stores},
       {"atomics", m.atomics},
       {"widestBits", m.widestBits}};
}

/// The predicted access of alike loads or stores on a line (from the IR: Access.h).
struct PredictedAccess {
  std::string what;  // "global load f32"
  std::string how;   // "coalesced (4 sectors per request)", "32-way bank conflict (...)"
  int count = 0;
};
inline void to_json(json& j, const PredictedAccess& a) {
  j = {{"what", a.what}, {"how", a.how}, {"count", a.count}};
}

struct LineCostInfo {
  int line = 0;      // 0-based over the wire; 1-based in `explain --json`
  std::string hint;  // "35 live · LDL ×12"
  std::string text;  // every figure in words
  int instructions = 0;
  std::optional<LiveRegisters> live;  // omitted without nvdisasm's life ranges
  int ldl = 0, stl = 0, spill = 0, array = 0;
  std::optional<int> issueCycles;  // stall counts summed: a lower bound; omitted below sm_70
  std::vector<MemoryAccess> memory;
  std::vector<PredictedAccess> access;
  std::optional<std::string> mayDiverge;  // why a branch on the line may diverge
};
inline void to_json(json& j, const LineCostInfo& c) {
  j = {{"line", c.line},     {"hint", c.hint},
       {"text", c.text},     {"instructions", c.instructions},
       {"ldl", c.ldl},       {"stl", c.stl},
       {"spill", c.spill},   {"array", c.array},
       {"memory", c.memory}, {"access", c.access}};
  detail::writeOptional(j, "mayDiverge", c.mayDiverge);
  detail::writeOptional(j, "live", c.live);
  detail::writeOptional(j, "issueCycles", c.issueCycles);
}

/// A per-thread array kept in local memory, and the line that indexes it at run time.
struct LocalArrayInfo {
  std::string name;
  int bytes = 0;
  std::vector<int> indexedAt;  // lines (as `line` is counted) that index it at run time
  std::optional<int> usedAt;
};
inline void to_json(json& j, const LocalArrayInfo& a) {
  j = {{"name", a.name}, {"bytes", a.bytes}, {"indexedAt", a.indexedAt}};
  detail::writeOptional(j, "usedAt", a.usedAt);
}

struct KernelCostInfo {
  std::string name;
  std::string summary;       // "37 registers → 75% at 256 threads; the peak is 35 live at ..."
  std::string registerNote;  // why allocated and peak live differ
  int allocated = 0;
  std::optional<int> peakLive;
  std::vector<int> peakLines, spillLines, arrayLines;  // lines of this document
  std::optional<int> stepRegisters;                    // at most this many registers ...
  std::optional<int> stepPercent;                      // ... give this occupancy
  std::vector<LocalArrayInfo> localArrays;
};
inline void to_json(json& j, const KernelCostInfo& k) {
  j = {{"name", k.name},
       {"summary", k.summary},
       {"registerNote", k.registerNote},
       {"allocated", k.allocated},
       {"peakLines", k.peakLines},
       {"spillLines", k.spillLines},
       {"arrayLines", k.arrayLines},
       {"localArrays", k.localArrays}};
  detail::writeOptional(j, "peakLive", k.peakLive);
  detail::writeOptional(j, "stepRegisters", k.stepRegisters);
  detail::writeOptional(j, "stepPercent", k.stepPercent);
}

struct LookFirst {
  int line = 0;
  std::string why;
};
inline void to_json(json& j, const LookFirst& l) { j = {{"line", l.line}, {"why", l.why}}; }

/// A line's static heat: its figure against the file's largest (0 < share <= 1).
struct HeatLine {
  int line = 0;
  double share = 0;
};
inline void to_json(json& j, const HeatLine& h) { j = {{"line", h.line}, {"share", h.share}}; }

/// The static heat of the lines by one figure each: "issueCycles", "live", "local".
struct StaticHeat {
  std::vector<HeatLine> issueCycles, live, local;
};
inline void to_json(json& j, const StaticHeat& h) {
  j = {{"issueCycles", h.issueCycles}, {"live", h.live}, {"local", h.local}};
}

struct LineCostsResult {
  int revision = 0;
  std::string arch;
  std::vector<LineCostInfo> lines;
  std::vector<KernelCostInfo> kernels;
  std::vector<LookFirst> lookFirst;
  StaticHeat heat;
};
inline void to_json(json& j, const LineCostsResult& r) {
  j = {{"revision", r.revision}, {"arch", r.arch},           {"lines", r.lines},
       {"kernels", r.kernels},   {"lookFirst", r.lookFirst}, {"heat", r.heat}};
}

// ---------------------------------------------------------------------------------------
// kernelscope/valueFlow: this request is a kernelscope extension.

struct ValueFlowParams {
  TextDocumentIdentifier textDocument;  // a SASS view, or the source file it is of
  int line = 0;  // a line of the SASS view (with `filters`, of that filtered view)
  std::optional<ArtifactFilters> filters;
};
inline void from_json(const json& j, ValueFlowParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  j.at("line").get_to(p.line);
  detail::readOptional(j, "filters", p.filters);
}

/// One SASS instruction of a value's way.
struct ValueFlowSite {
  std::optional<int> line;         // its line in the SASS view asked about; null when filtered out
  std::string address;             // "0x00d0"
  std::string opcode;              // "LDG.E"
  std::string text;                // the instruction, trimmed
  Location sass;                   // the SASS view's line
  std::optional<Location> source;  // the Rust line it came from
};
inline void to_json(json& j, const ValueFlowSite& s) {
  j = {{"line", s.line ? json(*s.line) : json(nullptr)},
       {"address", s.address},
       {"opcode", s.opcode},
       {"text", s.text},
       {"sass", s.sass},
       {"source", s.source ? json(*s.source) : json(nullptr)}};
}

struct ValueSource {
  std::string reg;  // "R2", "R4.64", "P0", "UR6"
  std::vector<ValueFlowSite> definitions;
  bool fromStart = false;  // some path from the function's start writes it nowhere
};
inline void to_json(json& j, const ValueSource& s) {
  j = {{"register", s.reg}, {"definitions", s.definitions}, {"fromStart", s.fromStart}};
}

struct ValueResult {
  std::string reg;
  std::vector<ValueFlowSite> uses;
};
inline void to_json(json& j, const ValueResult& r) { j = {{"register", r.reg}, {"uses", r.uses}}; }

struct ValueFlowResult {
  std::optional<ValueFlowSite> instruction;  // null: the line is no SASS instruction
  std::vector<ValueSource> sources;
  std::vector<ValueResult> results;
  std::string text;  // in words, as the hover says it
};
inline void to_json(json& j, const ValueFlowResult& r) {
  j = {{"instruction", r.instruction ? json(*r.instruction) : json(nullptr)},
       {"sources", r.sources},
       {"results", r.results},
       {"text", r.text}};
}

// ---------------------------------------------------------------------------------------
// kernelscope/diff: this request is a kernelscope extension.

struct DiffParams {
  TextDocumentIdentifier textDocument;
  std::string stage;
  std::optional<int> base;
};
inline void from_json(const json& j, DiffParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  j.at("stage").get_to(p.stage);
  detail::readOptional(j, "base", p.base);
}

struct DiffResult {
  int baseRevision = 0, revision = 0;
  std::string baseUri, uri;
  std::string unified;
};
inline void to_json(json& j, const DiffResult& r) {
  j = {{"baseRevision", r.baseRevision},
       {"revision", r.revision},
       {"baseUri", r.baseUri},
       {"uri", r.uri},
       {"unified", r.unified}};
}

// ---------------------------------------------------------------------------------------
// kernelscope/passes: this request is a kernelscope extension.

/// A kernel of a source document, named by `textDocument` or by `uri` (the source's
/// `file:` URI or a `kernelscope:/passes/...?kernel=NAME` document, which also names the
/// kernel). `stage` ("llvm-ir" or "mir") keeps one stage's passes; omitted, both.
struct PassesParams {
  std::optional<TextDocumentIdentifier> textDocument;
  std::optional<std::string> uri;
  std::optional<std::string> kernel;
  std::optional<std::string> stage;
};
inline void from_json(const json& j, PassesParams& p) {
  detail::readOptional(j, "textDocument", p.textDocument);
  detail::readOptional(j, "uri", p.uri);
  detail::readOptional(j, "kernel", p.kernel);
  detail::readOptional(j, "stage", p.stage);
}

/// One pass that changed the kernel: instructions (LLVM) or statements (MIR) before and
/// after, and the unified diff of the kernel's body.
struct PassInfo {
  std::string stage;  // "llvm-ir" | "mir"
  std::string name;
  std::string
      unit;  // LLVM: what it ran on ("saxpy", "loop %bb3 in function saxpy"); MIR: "3-2-004"
  int before = 0, after = 0;
  std::string diff;
};
inline void to_json(json& j, const PassInfo& p) {
  j = {{"stage", p.stage},   {"name", p.name},   {"unit", p.unit},
       {"before", p.before}, {"after", p.after}, {"diff", p.diff}};
}

struct PassesResult {
  std::string uri;     // the kernelscope:/passes/ document showing `text`
  std::string kernel;  // demangled
  int revision = 0;
  std::string text;  // the whole pass-by-pass report, as `kernelscope passes` prints it
  std::vector<PassInfo> passes;
};
inline void to_json(json& j, const PassesResult& r) {
  j = {{"uri", r.uri},
       {"kernel", r.kernel},
       {"revision", r.revision},
       {"text", r.text},
       {"passes", r.passes}};
}

// ---------------------------------------------------------------------------------------
// kernelscope/run and kernelscope/profile: these requests are kernelscope extensions.

/// A kernel of an open document to run or profile on a GPU. `spec`: launch spec items on top
/// of those written for the kernel (`"n = 4096; block = 128"`, as the CLI's --spec); `runs`:
/// timed launches (run only). `workDoneToken`: LSP work-done progress.
struct GpuRunParams {
  TextDocumentIdentifier textDocument;
  std::string kernel;
  std::vector<std::string> spec;
  std::optional<int> runs;
  json workDoneToken;  // string, integer or null
  /// profile: the filters of the views whose lines `editor.views` names; omitted: whole text.
  std::optional<ArtifactFilters> filters;
  /// profile: "last" (the default): compare with the profile of this file, kernel and spec
  /// kept before, when there is one; "none": no comparison (the profile is still kept).
  std::string baseline = "last";
};
inline void from_json(const json& j, GpuRunParams& p) {
  j.at("textDocument").get_to(p.textDocument);
  j.at("kernel").get_to(p.kernel);
  if (j.contains("spec")) {
    if (j["spec"].is_string())
      p.spec = {j["spec"].get<std::string>()};
    else
      j["spec"].get_to(p.spec);
  }
  detail::readOptional(j, "runs", p.runs);
  if (j.contains("workDoneToken")) p.workDoneToken = j["workDoneToken"];
  detail::readOptional(j, "filters", p.filters);
  if (j.contains("baseline")) j["baseline"].get_to(p.baseline);
}

/// The GPU a run or profile ran on.
struct GpuDevice {
  std::string name;
  std::string arch;  // "sm_90"
  int multiprocessors = 0;
  double peakBandwidth = 0;  // bytes/s
  double peakFlops = 0;      // FP32 operations/s
  int driverVersion = 0;     // 13000: 13.0
};
inline void to_json(json& j, const GpuDevice& d) {
  j = {{"name", d.name},
       {"arch", d.arch},
       {"multiprocessors", d.multiprocessors},
       {"peakBandwidth", d.peakBandwidth},
       {"peakFlops", d.peakFlops},
       {"driverVersion", d.driverVersion}};
}

struct GpuLaunch {
  std::string kernel;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t sharedBytes = 0;
};
inline void to_json(json& j, const GpuLaunch& l) {
  j = {{"kernel", l.kernel}, {"grid", l.grid}, {"block", l.block}, {"sharedBytes", l.sharedBytes}};
}

/// A buffer after the first launch: its sum and first elements (`type`: its element type as
/// the source names it, "f32", "Params").
struct GpuBuffer {
  std::string name;
  std::string type;
  uint64_t length = 0;
  bool output = false;
  double checksum = 0;
  std::vector<double> first;
};
inline void to_json(json& j, const GpuBuffer& b) {
  j = {{"name", b.name},     {"type", b.type},         {"length", b.length},
       {"output", b.output}, {"checksum", b.checksum}, {"first", b.first}};
}

/// kernelscope/run's result (and `kernelscope run --json`): times in ms, bytes/s, FLOP/s.
struct RunResult {
  std::string file;
  GpuDevice device;
  GpuLaunch launch;
  std::vector<double> timesMs;
  double minMs = 0, medianMs = 0, maxMs = 0;
  double bytes = 0;
  double bandwidth = 0;
  std::vector<GpuBuffer> buffers;
  double execMs = 0;
  std::optional<double> flops;
  std::optional<double> throughput;
};
inline void to_json(json& j, const RunResult& r) {
  j = {{"file", r.file},
       {"device", r.device},
       {"launch", r.launch},
       {"runs", r.timesMs.size()},
       {"timesMs", r.timesMs},
       {"timeMs", {{"min", r.minMs}, {"median", r.medianMs}, {"max", r.maxMs}}},
       {"bytes", r.bytes},
       {"bandwidth", r.bandwidth},
       {"buffers", r.buffers},
       {"execMs", r.execMs}};
  detail::writeOptional(j, "flops", r.flops);
  detail::writeOptional(j, "throughput", r.throughput);
}

struct StallSamples {
  std::string reason;
  double samples = 0;
};
inline void to_json(json& j, const StallSamples& s) {
  j = {{"reason", s.reason}, {"samples", s.samples}};
}

/// One source line of a profile, with Nsight Compute's counters.
struct ProfileLine {
  std::string file;
  uint32_t line = 0;  // 1-based; 0: code with no source line
  std::string text;
  double share = 0;  // of the kernel's stall samples
  std::string headline;
  double stallSamples = 0;
  std::vector<StallSamples> stalls;  // largest first
  size_t instructions = 0;
  double executed = 0;
  double threadsActive = 0;
  double l2Sectors = 0, l2SectorsIdeal = 0;
  double sharedBankConflictWays = 0;
};
inline void to_json(json& j, const ProfileLine& l) {
  j = {{"file", l.file},
       {"line", l.line},
       {"text", l.text},
       {"share", l.share},
       {"headline", l.headline},
       {"stallSamples", l.stallSamples},
       {"stalls", l.stalls},
       {"instructions", l.instructions},
       {"executed", l.executed},
       {"threadsActive", l.threadsActive},
       {"l2Sectors", l.l2Sectors},
       {"l2SectorsIdeal", l.l2SectorsIdeal},
       {"sharedBankConflictWays", l.sharedBankConflictWays}};
}

struct ProfileKernel {
  std::string name;
  double stallSamples = 0;
  std::optional<double> durationNs, achievedOccupancyPct, dramThroughputPct, dramBytes;
};
inline void to_json(json& j, const ProfileKernel& k) {
  j = {{"name", k.name}, {"stallSamples", k.stallSamples}};
  detail::writeOptional(j, "durationNs", k.durationNs);
  detail::writeOptional(j, "achievedOccupancyPct", k.achievedOccupancyPct);
  detail::writeOptional(j, "dramThroughputPct", k.dramThroughputPct);
  detail::writeOptional(j, "dramBytes", k.dramBytes);
}

/// One side of a line's change since a kept profile.
struct ProfileLineCounters {
  double stallSamples = 0;
  double share = 0;
  size_t instructions = 0;
  double l2Sectors = 0;
};
inline void to_json(json& j, const ProfileLineCounters& c) {
  j = {{"stallSamples", c.stallSamples},
       {"share", c.share},
       {"instructions", c.instructions},
       {"l2Sectors", c.l2Sectors}};
}

/// A line of the profile against the one kept before (or a saved one), lines matched
/// through the edit: `line` 1-based in the profiled text (0: a line the edit removed),
/// `beforeLine` its line then (null: new since), `stallChange` the relative change of its
/// stall samples (-0.4: 40% fewer; absent when it had none), `hint` the same in words.
struct ProfileLineDelta {
  uint32_t line = 0;
  std::optional<uint32_t> beforeLine;
  std::optional<ProfileLineCounters> before;
  ProfileLineCounters after;
  std::optional<double> stallChange;
  std::string hint;
};
inline void to_json(json& j, const ProfileLineDelta& d) {
  j = {{"line", d.line}, {"after", d.after}, {"hint", d.hint}};
  j["beforeLine"] = d.beforeLine ? json(*d.beforeLine) : json(nullptr);
  detail::writeOptional(j, "before", d.before);
  detail::writeOptional(j, "stallChange", d.stallChange);
}

/// kernelscope/profile's result (and `kernelscope profile --json`, without `editor`).
struct ProfileResult {
  std::string file;
  GpuDevice device;
  GpuLaunch launch;
  ProfileKernel kernel;
  std::vector<ProfileLine> lines;  // hottest first
  /// Each line's change since the baseline; absent without one.
  std::optional<std::vector<ProfileLineDelta>> baseline;
  /// The editor's side (hot lines, the views' heat); null: omitted.
  json editor;
};
inline void to_json(json& j, const ProfileResult& r) {
  j = {{"file", r.file},
       {"device", r.device},
       {"launch", r.launch},
       {"kernel", r.kernel},
       {"lines", r.lines}};
  detail::writeOptional(j, "baseline", r.baseline);
  if (!r.editor.is_null()) j["editor"] = r.editor;
}

// ---------------------------------------------------------------------------------------
// kernelscope/status: this notification (server -> client) is a kernelscope extension.

/// What one stage's code became against the base revision: instructions added and
/// removed; `changed` also when only declarations or labels did.
struct StageChange {
  std::string stage;
  int added = 0, removed = 0;
  bool changed = false;
};
inline void to_json(json& j, const StageChange& c) {
  j = {{"stage", c.stage}, {"added", c.added}, {"removed", c.removed}, {"changed", c.changed}};
}

/// A resource's value in the base revision and in this one.
struct ResourceDelta {
  int before = 0, after = 0;
};
inline void to_json(json& j, const ResourceDelta& d) { j = json::array({d.before, d.after}); }

/// A kernel that is new, gone, or whose resources changed. Only the resources that
/// changed are present.
struct KernelChangeSummary {
  std::string name;    // demangled
  std::string change;  // "added" | "removed" | "changed"
  std::optional<ResourceDelta> registers, spills, sharedMemory, stackFrame, occupancy;
};
inline void to_json(json& j, const KernelChangeSummary& k) {
  j = {{"name", k.name}, {"change", k.change}};
  detail::writeOptional(j, "registers", k.registers);
  detail::writeOptional(j, "spills", k.spills);
  detail::writeOptional(j, "sharedMemory", k.sharedMemory);
  detail::writeOptional(j, "stackFrame", k.stackFrame);
  detail::writeOptional(j, "occupancy", k.occupancy);
}

/// What changed since the newest earlier revision that compiled.
struct CompileChanges {
  int baseRevision = 0;
  std::string summary;  // "PTX +3 −1, SASS +2, regs 10→12", or "no change"
  std::vector<StageChange> stages;
  std::vector<KernelChangeSummary> kernels;
};
inline void to_json(json& j, const CompileChanges& c) {
  j = {{"baseRevision", c.baseRevision},
       {"summary", c.summary},
       {"stages", c.stages},
       {"kernels", c.kernels}};
}

struct StatusParams {
  std::string uri;
  int revision = 0;
  std::string state;  // "queued" | "compiling" | "ready" | "failed"
  std::vector<std::string> stages;
  std::optional<int> durationMs;
  std::optional<std::string> message;
  std::optional<CompileChanges> changes;  // `ready` after an earlier revision compiled
  bool workspaceTrusted = false;          // whether the user trusts the workspace
  std::vector<std::string> withheld;      // workspace values not applied for want of trust
  /// With `ready`: what this compile still publishes ("resources", "sass"); another
  /// `ready` follows. Absent when everything is there.
  std::vector<std::string> pending;
};
inline void to_json(json& j, const StatusParams& s) {
  j = {{"uri", s.uri},
       {"revision", s.revision},
       {"state", s.state},
       {"stages", s.stages},
       {"workspaceTrusted", s.workspaceTrusted},
       {"withheld", s.withheld}};
  detail::writeOptional(j, "durationMs", s.durationMs);
  detail::writeOptional(j, "message", s.message);
  detail::writeOptional(j, "changes", s.changes);
  if (!s.pending.empty()) j["pending"] = s.pending;
}

// ---------------------------------------------------------------------------------------
// kernelscope/sync: this request is a kernelscope extension. It answers `null` once every
// scheduled compile has finished and its results have been sent, so tests never sleep.

// ---------------------------------------------------------------------------------------

/// One extension method as the contract lists it.
struct ExtensionMethod {
  std::string_view method;
  std::string_view kind;       // "request" or "notification"
  std::string_view direction;  // "client -> server" or "server -> client"
  json exampleParams;          // every field present, built from the types above
  json exampleResult;          // null for notifications
};

/// Every kernelscope extension method, in the order docs/lsp-extensions.md lists them.
const std::vector<ExtensionMethod>& extensionMethods();

}  // namespace ks::lsp
