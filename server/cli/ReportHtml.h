// `kernelscope report`: one self-contained HTML file a reviewer can open anywhere (a CI
// artifact, no server, no network): the source and each stage side by side with linked
// highlighting both ways, the kernels' resources, the optimizer's remarks and diagnostics.
// Each stage shows the editors' filtered view by default; "every line" shows its whole text.
#pragma once

#include <string>
#include <string_view>

namespace ks {

/// The page for `dataJson`: `{"explain": <explain --json's object>, "source": TEXT,
/// "stages": {STAGE: {"title": ..., "text": ..., "view": {"hidden": [[FIRST, LAST], ...],
/// "rewritten": {LINE: TEXT}}}}, "order": [STAGE, ...], "baseline": ..., "profile": ...}`,
/// embedded in the page as it is. Lines count the stage's whole text from 0; `view` is the
/// editors' default view of it (the lines it hides, the lines whose text it changes).
std::string reportHtml(std::string_view dataJson);

}  // namespace ks
