// ParkedResult: a compile result kept out of its working form while nobody reads it.
//
// A result in memory is its artifacts with their line indexes and chains, its line map and
// its remarks: about 23 MiB for a file of 40 kernels. Parked, it is the result serialized as
// the on-disk store writes it (ResultStore.h) and compressed with zstd, a few MiB, and it
// comes back whole, equal to what was parked, in tens of milliseconds. The language server
// parks the results of documents the editor has not asked about for a while
// (Workspace::parkIdle) and the engine's cache lets go of them.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "Compile.h"

namespace ks {

class ParkedResult {
 public:
  /// `result` parked; nullptr for one that cannot be (a failed, cancelled or partial
  /// result, which is small and not worth it, or bytes that did not compress).
  static std::shared_ptr<const ParkedResult> park(const CompileResult& result);

  /// The result as it was parked; nullptr if its bytes no longer read back (they are
  /// checked by their digest).
  std::shared_ptr<const CompileResult> unpark() const;
  /// The bytes it holds.
  size_t bytes() const { return packed_.size(); }
  /// The bytes of the serialized result, before compression.
  size_t serializedBytes() const { return serializedBytes_; }

 private:
  std::string packed_;
  size_t serializedBytes_ = 0;
};

}  // namespace ks
