// ParkedResult: a compile result kept out of its working form while nobody reads it.
//
// A result in memory is its artifacts with their line indexes and chains, its line map and
// its remarks: about 23 MiB for a file of 40 kernels. Parked, it is the result serialized as
// the on-disk store writes it (ResultStore.h) and compressed with zstd, a few MiB, and it
// comes back whole, equal to what was parked, in tens of milliseconds. The language server
// parks the results nobody looks at (Workspace::toPark), and the engine's cache keeps them
// parked (Engine::park).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "Compile.h"

namespace ks {

class ParkedResult {
 public:
  /// Whether `result` can be parked: a finished result with code (a failed, cancelled or
  /// partial one is small, or still changing, and not worth it).
  static bool parkable(const CompileResult& result);
  /// `result` parked; nullptr for one that cannot be (not parkable, or bytes that did not
  /// compress).
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
