// Unit tests of the virtual document URIs (src/uri.ts): building, reading back, and the
// cases the server and VS Code encode differently.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import {
  artifactUri,
  fileUri,
  filePath,
  parseArtifactUri,
  sameUri,
  viewTitle,
  type ArtifactAddress,
} from "../src/uri";

function checkRoundTrip(address: ArtifactAddress, expected: string): void {
  const uri = artifactUri(address);
  assert.equal(uri, expected);
  assert.deepEqual(parseArtifactUri(uri), address);
}

test("each stage gets its own path prefix and extension", () => {
  checkRoundTrip({ stage: "ptx", sourcePath: "/home/me/k/src/lib.rs" }, "kernelscope:/ptx/home/me/k/src/lib.rs.ptx");
  checkRoundTrip({ stage: "sass", sourcePath: "/k/a.rs" }, "kernelscope:/sass/k/a.rs.sass");
  checkRoundTrip({ stage: "llvm-ir", sourcePath: "/k/a.rs" }, "kernelscope:/llvm-ir/k/a.rs.ll");
  checkRoundTrip({ stage: "mir", sourcePath: "/k/a.rs" }, "kernelscope:/mir/k/a.rs.mir");
});

test("a pinned revision travels in the query", () => {
  checkRoundTrip({ stage: "ptx", sourcePath: "/k/a.rs", revision: 7 }, "kernelscope:/ptx/k/a.rs.ptx?rev=7");
  assert.equal(parseArtifactUri("kernelscope:/ptx/k/a.rs.ptx?x=1&rev=12")?.revision, 12);
  assert.equal(parseArtifactUri("kernelscope:/ptx/k/a.rs.ptx?rev%3D7")?.revision, 7, "as VS Code prints it");
});

test("paths with spaces and unicode are percent-encoded per segment", () => {
  checkRoundTrip(
    { stage: "ptx", sourcePath: "/home/me/my kernels/s\u00e4xpy.rs" },
    "kernelscope:/ptx/home/me/my%20kernels/s%C3%A4xpy.rs.ptx",
  );
});

test("VS Code's authority form is read too", () => {
  assert.deepEqual(parseArtifactUri("kernelscope:///ptx/k/a.rs.ptx"), { stage: "ptx", sourcePath: "/k/a.rs" });
});

test("URIs that are not views are refused", () => {
  for (const uri of [
    "file:///k/a.rs",
    "kernelscope:/cubin/k/a.rs.cubin",
    "kernelscope:/ptx/k/a.rs.sass",
    "kernelscope:/ptx",
    "kernelscope:/ptx/k/%E0%A4%A.rs.ptx",
  ]) {
    assert.equal(parseArtifactUri(uri), undefined, uri);
  }
});

test("relative source paths are refused", () => {
  assert.throws(() => artifactUri({ stage: "ptx", sourcePath: "src/lib.rs" }));
});

test("file URIs convert both ways", () => {
  assert.equal(fileUri("/k/my file.rs"), "file:///k/my%20file.rs");
  assert.equal(filePath("file:///k/my%20file.rs"), "/k/my file.rs");
  assert.equal(filePath("kernelscope:/ptx/k/a.rs.ptx"), undefined);
});

test("URIs compare equal whatever side encoded what", () => {
  assert.ok(sameUri("file:///k/a%3Ab.rs", "file:///k/a:b.rs"));
  assert.ok(!sameUri("file:///k/a.rs", "file:///k/b.rs"));
});

test("a view's title names the file by its relative path, slashes and all, and the stage", () => {
  assert.equal(viewTitle("kern/src/lib.rs", "ptx"), "kern/src/lib.rs · PTX");
  assert.equal(viewTitle("saxpy.rs", "llvm-ir"), "saxpy.rs · LLVM IR");
});
