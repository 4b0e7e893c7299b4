// The kernel image cache (KernelImages.h): what it holds in memory within its bound, a cubin
// that several groups' images share counted once, and its disk entries read back whole.
#include <doctest/doctest.h>

#include "KernelImages.h"
#include "Process.h"
#include "TestSupport.h"

using namespace ks;

namespace {

std::shared_ptr<const KernelImage> imageWith(std::shared_ptr<const std::string> cubin,
                                             std::string report) {
  auto image = std::make_shared<KernelImage>();
  image->report = std::move(report);
  image->cubin = std::move(cubin);
  image->sass = "\t.text.k:\n";
  return image;
}

}  // namespace

TEST_CASE("kernel images that share a merged module's cubin count it once in memory") {
  const auto merged = std::make_shared<const std::string>(100'000, 'm');
  const auto other = std::make_shared<const std::string>(100'000, 'o');
  // Room for one cubin and a few images' reports, not for two cubins.
  KernelImageCache cache(150'000);
  cache.insert("a", imageWith(merged, "group a"));
  cache.insert("b", imageWith(merged, "group b"));
  REQUIRE(cache.find("a"));  // both held: the cubin they share counts once
  REQUIRE(cache.find("b"));
  CHECK(cache.find("a")->cubin == cache.find("b")->cubin);
  // Another cubin does not fit beside it: both images that hold the first go, least recent first.
  cache.insert("c", imageWith(other, "group c"));
  CHECK_FALSE(cache.find("a"));
  CHECK_FALSE(cache.find("b"));
  REQUIRE(cache.find("c"));
  CHECK(*cache.find("c")->cubin == *other);
  // Replacing an entry gives back what it held; an image larger than the bound is not kept.
  cache.insert("c", imageWith(other, "group c again"));
  CHECK(cache.find("c")->report == "group c again");
  cache.insert("huge", imageWith(std::make_shared<const std::string>(200'000, 'h'), "huge"));
  CHECK_FALSE(cache.find("huge"));
  CHECK(cache.find("c"));
}

TEST_CASE("a kernel image on disk reads back whole, its cubin byte for byte") {
  TempDir dir("kernel-images-test");
  const std::string bytes(
      "\x7f"
      "ELF\0\1\2 cubin",
      14);
  {
    KernelImageCache writer(1 << 20, dir.path(), 1 << 20);
    writer.insert("0123456789abcdef0123456789abcdef",
                  imageWith(std::make_shared<const std::string>(bytes), "ptxas report"));
  }
  KernelImageCache reader(1 << 20, dir.path(), 1 << 20);
  const auto image = reader.find("0123456789abcdef0123456789abcdef");
  REQUIRE(image);
  REQUIRE(image->cubin);
  CHECK(*image->cubin == bytes);
  CHECK(image->report == "ptxas report");
  CHECK(image->sass == std::optional<std::string>("\t.text.k:\n"));
  CHECK_FALSE(reader.find("ffffffffffffffffffffffffffffffff"));
}
