// Unit tests of the status bar's description of what a compile changed (src/changes.ts).

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { describeChanges } from "../src/changes";

test("changed stages and kernels each get a line after the summary", () => {
  const lines = describeChanges({
    baseRevision: 2,
    summary: "PTX +3 −1, SASS ±0, regs 10→12, +kernel scale",
    stages: [
      { stage: "llvm-ir", added: 0, removed: 0, changed: false },
      { stage: "ptx", added: 3, removed: 1, changed: true },
      { stage: "sass", added: 0, removed: 0, changed: true },
    ],
    kernels: [
      { name: "saxpy", change: "changed", registers: [10, 12], occupancy: [100, 75] },
      { name: "scale", change: "added" },
    ],
  });
  assert.deepEqual(lines, [
    "**Since the last compile:** PTX +3 −1, SASS ±0, regs 10→12, +kernel scale",
    "- PTX: 3 instructions added, 1 removed",
    "- SASS: declarations or labels only",
    "- `saxpy`: registers 10 → 12, occupancy 100% → 75%",
    "- `scale`: new kernel",
  ]);
});

test("no change is the summary alone", () => {
  const lines = describeChanges({
    baseRevision: 4,
    summary: "no change",
    stages: [{ stage: "ptx", added: 0, removed: 0, changed: false }],
    kernels: [],
  });
  assert.deepEqual(lines, ["**Since the last compile:** no change"]);
});
