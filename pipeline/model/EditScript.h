// The one sequence aligner: the shortest edit script between two sequences of lines. Diffs
// of two compiles use it, and so does the alignment of regenerated PTX with rustc's
// (ExactLocations.h). Myers' algorithm, in time linear in the lengths for a few
// differences, unlike a longest-common-subsequence table (n·m).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ks {

enum class EditOp : uint8_t { Equal, Delete, Insert };

struct Edit {
  EditOp op;
  size_t a, b;  // indices into the first and second sequences (the one that applies)
};

struct EditScript {
  /// Every element of both sequences once, in order: Equal pairs (a longest common
  /// subsequence), Delete from the first, Insert from the second.
  std::vector<Edit> edits;
  /// False when more than the bound differ: then everything between the common prefix
  /// and suffix is given as deleted and inserted.
  bool complete = true;
};

/// The shortest edit script from `a` to `b`, searching at most `maxDistance` edits (a bound
/// on time and memory for sequences that differ wholesale).
EditScript shortestEdit(const std::vector<std::string>& a, const std::vector<std::string>& b,
                        int maxDistance);

}  // namespace ks
