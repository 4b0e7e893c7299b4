// The toolchain check when the extension starts: `kernelscope doctor`, and what to do about it.
//
// The server compiles with tools of the machine (rustc, the nvptx64 `core` it builds once,
// ptxas + nvdisasm). The extension runs `kernelscope doctor` once per start, and when a
// compile tool is missing it says so in words: the one thing it can fix itself, the nvptx64
// `core`, gets a button that runs `kernelscope setup` under a progress notification; for the
// rest it gives doctor's own fix. The whole report goes to the output channel. The `run` and
// `profile` section (a CUDA driver, ncu) is not needed to compile and is left out.

import { ChildProcess, execFile, spawn } from "child_process";
import * as vscode from "vscode";
import { missingTools, type MissingTool } from "./doctor_report";

/** Runs `kernelscope doctor` and tells the user what is missing; `onFixed` after a setup. */
export async function checkToolchain(
  server: string,
  output: vscode.OutputChannel,
  onFixed: () => void,
): Promise<MissingTool[]> {
  const report = await new Promise<string>((resolve) => {
    // Exit status 1 means "something is missing": the report is still on stdout.
    execFile(server, ["doctor"], { timeout: 60000 }, (error, stdout, stderr) => {
      resolve(stdout || `${stderr}${error ? `\n${error.message}` : ""}`);
    });
  });
  output.appendLine(`kernelscope doctor:\n${report}`);
  const missing = missingTools(report);
  const sysroot = missing.find((m) => m.tool === "sysroot");
  const rustcMissing = missing.some((m) => m.tool === "rustc");
  for (const m of missing.filter((m) => m !== sysroot || rustcMissing)) {
    const words = `kernelscope: ${m.tool} is missing: ${m.problem}.${m.fix ? ` To fix it: ${m.fix}.` : ""}`;
    void vscode.window.showWarningMessage(words, "Show Details").then((choice) => {
      if (choice) output.show(true);
    });
  }
  if (sysroot && !rustcMissing) {
    const build = "Build It Now";
    const choice = await vscode.window.showWarningMessage(
      "kernelscope: the nvptx64 core library is not built yet (once per rustc version, a minute or two). Kernels compile after it.",
      build,
      "Show Details",
    );
    if (choice === build && (await runSetup(server, output)) === "built") onFixed();
    else if (choice && choice !== build) output.show(true);
  }
  return missing;
}

/** The `kernelscope setup` running, if any: it ends with the extension. */
let setupChild: ChildProcess | undefined;

/**
 * Stops a running `kernelscope setup` (the extension is deactivated: its window closes).
 * SIGTERM: setup kills the tools it runs and removes its temporary files before it exits.
 */
export function stopSetup(): Promise<void> {
  const child = setupChild;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const closed = new Promise<void>((resolve) => {
    child.once("close", () => resolve());
    setTimeout(resolve, 5000);
  });
  child.kill("SIGTERM");
  return closed;
}

type SetupOutcome = "built" | "failed" | "cancelled";

/** `kernelscope setup` under a progress notification whose Cancel stops it. */
async function runSetup(server: string, output: vscode.OutputChannel): Promise<SetupOutcome> {
  const outcome = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "kernelscope: building the nvptx64 core", cancellable: true },
    (progress, token) =>
      new Promise<SetupOutcome>((resolve) => {
        const child = spawn(server, ["setup"], { stdio: ["ignore", "pipe", "pipe"] });
        setupChild = child;
        let cancelled = false;
        token.onCancellationRequested(() => {
          cancelled = true;
          child.kill("SIGTERM");
        });
        const onText = (chunk: Buffer) => {
          for (const line of chunk.toString().split("\n").filter((l) => l.trim())) {
            output.appendLine(line);
            progress.report({ message: line.replace(/^\[setup\]\s*/, "") });
          }
        };
        child.stdout.on("data", onText);
        child.stderr.on("data", onText);
        child.on("error", (error) => {
          output.appendLine(`kernelscope setup: ${error.message}`);
          resolve("failed");
        });
        child.on("close", (code) => {
          setupChild = undefined;
          resolve(code === 0 ? "built" : cancelled ? "cancelled" : "failed");
        });
      }),
  );
  if (outcome === "built") {
    void vscode.window.showInformationMessage("kernelscope: the nvptx64 core is built; kernels compile now.");
  } else if (outcome === "cancelled") {
    output.appendLine("kernelscope setup: cancelled");
    void vscode.window.showInformationMessage(
      "kernelscope: building the nvptx64 core was cancelled. Kernels compile once it is built: run `kernelscope setup`, or reload the window to be offered it again.",
    );
  } else {
    void vscode.window.showErrorMessage("kernelscope setup failed: see the kernelscope output for why.", "Show Details")
      .then((choice) => choice && output.show(true));
  }
  return outcome;
}
