// One stable hash for every cache key and on-disk name: LLVM's xxh3. Unlike std::hash, its
// value is the same in every build and on every machine, so a cache directory named by it
// is found again after kernelscope is rebuilt.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ks {

/// A 128-bit hex digest of `parts`, each delimited (["ab","c"] and ["a","bc"] differ).
std::string stableDigest(const std::vector<std::string_view>& parts);
/// The digest of one byte string as it is (not framed, not copied: for many megabytes).
std::string bytesDigest(std::string_view bytes);

}  // namespace ks
