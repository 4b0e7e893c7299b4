// doctest's main for the pipeline tests.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

#include "TestSupport.h"

int main(int argc, char** argv) {
  if (std::getenv("KS_TEST_TEMPDIR_CHURN")) ks::test::churnTempDirsUntilSignalled();
  // Every kernelscope the tests start compiles (a test of a failing tool must see it fail):
  // the tests of the result cache turn it on for their own runs.
  ::setenv("KERNELSCOPE_RESULT_CACHE_MB", "0", 1);
  return doctest::Context(argc, argv).run();
}
