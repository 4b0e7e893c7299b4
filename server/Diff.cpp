// kernelscope/diff: what a stage's code became between two revisions, as the pipeline's
// normalized unified diff, plus versioned virtual URIs for editors' own diff views.
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
  r.unified = diffArtifacts((*before)->artifact, (*after)->artifact, "revision " + std::to_string(base.revision),
                            "revision " + std::to_string(current.revision))
                  .unified;
  return r;
}

}  // namespace ks::server
