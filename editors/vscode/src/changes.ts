// What a compile changed against the one before it (`changes` of kernelscope/status), as
// the status bar tooltip shows it. The one-line summary comes from the server; this adds
// the details stage by stage and kernel by kernel. No vscode import, so it is unit-tested.

import type { CompileChanges, KernelChange, ResourceDelta } from "./lsp_ext";
import { stageTitle } from "./uri";

const RESOURCES: { key: keyof KernelChange; name: string; unit: string }[] = [
  { key: "registers", name: "registers", unit: "" },
  { key: "spills", name: "spills", unit: " B" },
  { key: "sharedMemory", name: "shared memory", unit: " B" },
  { key: "stackFrame", name: "stack frame", unit: " B" },
  { key: "occupancy", name: "occupancy", unit: "%" },
];

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? "" : "s"}`;
}

/** Markdown lines: the summary against the compile before, then one line per change. */
export function describeChanges(c: CompileChanges): string[] {
  const lines = [`**Since the last compile:** ${c.summary}`];
  for (const s of c.stages) {
    if (!s.changed) continue;
    lines.push(
      s.added || s.removed
        ? `- ${stageTitle(s.stage)}: ${plural(s.added, "instruction")} added, ${s.removed} removed`
        : `- ${stageTitle(s.stage)}: declarations or labels only`,
    );
  }
  for (const k of c.kernels) {
    if (k.change !== "changed") {
      lines.push(`- \`${k.name}\`: ${k.change === "added" ? "new kernel" : "kernel gone"}`);
      continue;
    }
    const parts = RESOURCES.filter((r) => k[r.key]).map((r) => {
      const [before, after] = k[r.key] as ResourceDelta;
      return `${r.name} ${before}${r.unit} → ${after}${r.unit}`;
    });
    if (parts.length) lines.push(`- \`${k.name}\`: ${parts.join(", ")}`);
  }
  return lines;
}
