// Documents out of view: their results parked (Workspace::parkIdle) and back whole when the
// editor asks about them again (Workspace::use).
#include <doctest/doctest.h>

#include <atomic>
#include <string>

#include "CompileCache.h"
#include "ServerTestSupport.h"
#include "Session.h"
#include "TestClient.h"
#include "features/Recorded.h"

namespace ks::test {

using server::Document;
using server::Snapshot;
using server::Workspace;

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::milliseconds kIdle{1000};

/// `d`'s current revision compiled to `result`.
std::shared_ptr<const Snapshot> record(Workspace& w, Document& d,
                                       std::shared_ptr<const CompileResult> result) {
  auto s = std::make_shared<Snapshot>();
  s->uri = d.uri;
  s->path = d.path;
  s->revision = d.revision;
  s->text = d.text;
  s->result = std::move(result);
  REQUIRE(w.record(d.path, s));
  return s;
}

/// What the features read of a result, in short (ParkedResult's round trip is checked whole
/// by the engine's tests).
std::string shape(const CompileResult& r) {
  std::string out = std::to_string(r.kernels.size()) + " kernels, " +
                    std::to_string(r.remarks.size()) + " remarks\n";
  for (const auto& [stage, outcome] : r.stages)
    out += std::string(stageName(stage)) + " " + std::to_string(outcome.artifact->lines().size()) +
           " lines\n" + outcome.artifact->text();
  return out;
}

/// Parks what `w` says to park as of `now`, as the server's parking job does.
size_t parkAll(Workspace& w, Clock::time_point now) {
  auto results = w.toPark(now, kIdle);
  for (const auto& r : results) w.parked(r, ParkedResult::park(*r), now, kIdle);
  return results.size();
}

}  // namespace

TEST_CASE("results nobody looks at are parked, and come back whole when asked for") {
  auto saxpy = recordedSnapshot("examples/saxpy.rs")->result;
  auto mul = recordedSnapshot("examples/elementwise_mul.rs")->result;
  Workspace w;
  server::Session session(w);
  Document& a = w.open("file:///w/a.rs", "/w/a.rs", "rust", 1, "a");
  record(w, a, saxpy);
  Document& b = w.open("file:///w/b.rs", "/w/b.rs", "rust", 1, "b");
  record(w, b, saxpy);  // the same result: b is in use, so it stays, for both
  const auto start = Clock::now();
  a.lastUsed = b.lastUsed = start;
  CHECK(parkAll(w, start + kIdle / 2) == 0);  // each document's newest stays while in use

  // A new revision of a: the one before it would be parked, once, though b shares it...
  w.bump(a);
  record(w, a, mul);
  b.lastUsed = start + kIdle;
  CHECK(
      w.toPark(start + kIdle / 2, kIdle).empty());  // ...not while b, whose newest it is, is in use
  auto results = w.toPark(start + kIdle, kIdle);    // a idle: its newest goes, b's stays
  REQUIRE(results.size() == 1);
  CHECK(results[0] == a.snapshots.back()->result);
  b.lastUsed = start;  // b idle too: saxpy goes, once for both
  auto more = w.toPark(start + kIdle, kIdle);
  REQUIRE(more.size() == 1);
  CHECK(more[0] == saxpy);
  results.push_back(more[0]);
  CHECK(w.toPark(start + kIdle, kIdle).empty());  // handed out already
  a.lastUsed = start + kIdle;                     // a used meanwhile: its newest stays after all
  for (const auto& r : results) w.parked(r, ParkedResult::park(*r), start + kIdle, kIdle);
  CHECK_FALSE(a.snapshots.back()->parked);
  REQUIRE(a.snapshots.front()->parked);
  CHECK(a.snapshots.front()->parked == b.snapshots.back()->parked);  // one parked result
  CHECK(b.lastAttempt == b.snapshots.back());

  // What the session and a code lens read of a parked result is still there.
  const Snapshot& older = *a.snapshots.front();
  CHECK(older.result->stages.empty());
  CHECK(older.result->succeeded);
  CHECK(older.result->sourceFiles == saxpy->sourceFiles);
  CHECK(older.result->lineMap->userFiles() == saxpy->lineMap->userFiles());
  CHECK(older.result->kernels.size() == saxpy->kernels.size());
  CHECK(older.bytes == older.parked->bytes());
  CHECK(older.bytes < footprint(*saxpy) / 4);
  CHECK(session.reads(b, saxpy->sourceFiles.front().string()));

  // Asked for: the newest comes back when the document is used, an older one when named.
  REQUIRE(w.use(b, start + 2 * kIdle));
  CHECK_FALSE(b.snapshots.back()->parked);
  CHECK(shape(*b.snapshots.back()->result) == shape(*saxpy));
  CHECK(b.lastAttempt == b.snapshots.back());
  auto back = w.unparked(a, Workspace::before(a, a.revision));
  REQUIRE(back);
  CHECK_FALSE(back->parked);
  CHECK(shape(*back->result) == shape(*saxpy));
  CHECK(a.snapshots.front() == back);
  // a idle again: both its results are parked again; b's newest, in use, stays.
  CHECK(parkAll(w, start + 2 * kIdle) == 2);
  CHECK(a.snapshots.front()->parked);
  CHECK(a.snapshots.back()->parked);
  CHECK_FALSE(b.snapshots.back()->parked);
}

TEST_CASE("a parked document answers every request as it did before it was parked") {
  // The same two documents in two servers, one of which parks each document as soon as its
  // compile is done (and the other's at once, as it goes idle): every answer is the same.
  auto recorded = [](const std::string& kernel) { return *recordedSnapshot(kernel); };
  const Snapshot saxpy = recorded("examples/saxpy.rs"),
                 mul = recorded("examples/elementwise_mul.rs");
  auto serve = [&](std::chrono::milliseconds parkAfter, std::atomic<int>& parks) {
    server::ServerOptions options = TestClient::options();
    options.compile = [&](const CompileInput& in, const CompileOptions&, const CancellationToken&) {
      return *(in.path.string() == saxpy.path ? saxpy : mul).result;
    };
    options.parkIdleAfter = parkAfter;
    options.park = [&parks](const std::shared_ptr<const CompileResult>& r) {
      ++parks;
      return ParkedResult::park(*r);
    };
    return options;
  };
  std::atomic<int> parks{0}, neverParked{0};
  TestClient parking(serve(std::chrono::milliseconds(0), parks));
  TestClient keeping(serve(std::chrono::hours(1), neverParked));
  std::vector<std::string> uris;
  for (TestClient* client : {&parking, &keeping}) {
    uris = {client->open(saxpy.path, saxpy.text), client->open(mul.path, mul.text)};
    client->sync();
  }
  CHECK(parks >= 2);
  CHECK(neverParked == 0);
  auto ask = [&](const std::string& method, json params) {
    json mine = parking.request(method, params), theirs = keeping.request(method, params);
    CHECK(mine.value("result", json()) == theirs.value("result", json()));
    CHECK(mine.contains("result"));
  };
  for (const std::string& uri : uris) {
    CAPTURE(uri);
    for (const char* stage : {"mir", "llvm-ir", "ptx", "sass"})
      ask("kernelscope/artifact", {{"textDocument", {{"uri", uri}}}, {"stage", stage}});
    ask("kernelscope/kernels", textDocument(uri));
    ask("textDocument/codeLens", textDocument(uri));
    ask("textDocument/inlayHint", {{"textDocument", {{"uri", uri}}},
                                   {"range",
                                    {{"start", {{"line", 0}, {"character", 0}}},
                                     {"end", {{"line", 99}, {"character", 0}}}}}});
    for (int line = 0; line < 20; ++line)
      ask("textDocument/hover",
          {{"textDocument", {{"uri", uri}}}, {"position", {{"line", line}, {"character", 8}}}});
  }

  // An edit: the revision before it, parked, comes back when a request names it.
  for (TestClient* client : {&parking, &keeping}) {
    client->change(uris[0], saxpy.text + "\n", 2);
    client->sync();
  }
  const json saxpyDoc = {{"uri", uris[0]}};
  ask("kernelscope/artifact", {{"textDocument", saxpyDoc}, {"stage", "sass"}, {"revision", 1}});
  ask("kernelscope/diff", {{"textDocument", saxpyDoc}, {"stage", "ptx"}, {"base", 1}});
  ask("kernelscope/diff", {{"textDocument", saxpyDoc}, {"stage", "sass"}});
}

}  // namespace ks::test
