// kernelscope/diff: what a stage's code became between two revisions, as the pipeline's
// normalized unified diff, plus versioned virtual URIs for editors' own diff views; and
// the per-stage summary of a compile against the one before it, for kernelscope/status.
#include "Diff.h"

#include "Features.h"

namespace ks::server {

lsp::Expected<lsp::DiffResult> diffOf(const Snapshot& base, const Snapshot& current, Stage stage) {
  auto before = stageOf(base, stage);
  if (!before) return before.error();
  auto after = stageOf(current, stage);
  if (!after) return after.error();
  lsp::DiffResult r;
  r.baseRevision = base.revision;
  r.revision = current.revision;
  r.baseUri = virtualUri(stage, base.path, base.revision);
  r.uri = virtualUri(stage, current.path, current.revision);
  // Headers in the user's words; the revisions travel in the reply's own fields.
  r.unified = diffArtifacts(*(*before)->artifact, *(*after)->artifact, "previous save", "this save")
                  .unified;
  return r;
}

lsp::CompileChanges changesOf(const Snapshot& base, const Snapshot& current) {
  const CompileDiff d = diffCompiles(*base.result, *current.result, "previous save", "this save");
  lsp::CompileChanges c;
  c.baseRevision = base.revision;
  c.summary = d.summary;
  for (const StageDiff& s : d.stages)
    c.stages.push_back({std::string(stageName(s.stage)), static_cast<int>(s.added),
                        static_cast<int>(s.removed), s.changed()});
  for (const KernelChange& k : d.kernels) {
    if (!k.changed()) continue;
    lsp::KernelChangeSummary out;
    out.name = k.kernel;
    out.change = !k.before ? "added" : !k.after ? "removed" : "changed";
    for (const ResourceChange& r : k.resources) {
      const lsp::ResourceDelta delta{static_cast<int>(r.before), static_cast<int>(r.after)};
      switch (r.resource) {
        case Resource::Registers:
          out.registers = delta;
          break;
        case Resource::Spills:
          out.spills = delta;
          break;
        case Resource::SharedMemory:
          out.sharedMemory = delta;
          break;
        case Resource::StackFrame:
          out.stackFrame = delta;
          break;
        case Resource::Occupancy:
          out.occupancy = delta;
          break;
      }
    }
    c.kernels.push_back(std::move(out));
  }
  return c;
}

}  // namespace ks::server
