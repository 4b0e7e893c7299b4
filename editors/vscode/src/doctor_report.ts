// What `kernelscope doctor` says is missing, read from its report as plain data (no VS Code
// here, so it is tested with the report's real text); doctor.ts acts on it.

/** A missing tool as doctor reports it: `sysroot   MISSING  <problem>` and its `fix:` line. */
export interface MissingTool {
  tool: string;
  problem: string;
  fix?: string;
}

/** The compile tools doctor reports missing, from its text (plain data, tested without VS Code). */
export function missingTools(report: string): MissingTool[] {
  const section = report.split(/\n\s*\n/)[0] ?? "";
  const lines = section.split("\n");
  const missing: MissingTool[] = [];
  lines.forEach((line, i) => {
    const row = /^\s{2}.{22}(\S+)\s+MISSING\s+(.*)$/.exec(line);
    if (!row) return;
    const fix = /^\s+fix:\s+(.*)$/.exec(lines[i + 1] ?? "")?.[1];
    missing.push({ tool: row[1], problem: row[2].trim(), fix });
  });
  return missing;
}
