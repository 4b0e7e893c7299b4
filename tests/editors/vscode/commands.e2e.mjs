// End-to-end test of commands a user runs on a kernel, in a real VS Code (code-server in
// headless Chromium): a type error's diagnostic says what was expected and what was found,
// rustc's machine-applicable suggestion applies as a quick fix (Ctrl+.), a launch spec's
// error shows at its line and its quick fix fixes it, the arch picker's
// "default" entry takes back an arch set in the user settings, and Restart Language Server
// restarts without an error notification.
//
// Environment: as e2e.mjs (run.sh sets it; the user settings start at sm_75, directives
// shown, so that the PTX's `.target` tells the arch).

import * as fs from "node:fs";
import * as path from "node:path";
import {
  applyQuickFix,
  focusBackIn,
  focusEditor,
  goToLine,
  group,
  lineOf,
  noExtensionHostErrors,
  openAndCompile,
  openFile,
  outputChannel,
  pickArch,
  renderedLines,
  runCommand,
  runSteps,
  statusText,
  step,
  STEP_MS,
  viewTitle,
  waitUntil,
} from "./page.mjs";

const URL = process.env.KS_URL;
const WORKSPACE = process.env.KS_WORKSPACE;
const USER_DATA = process.env.KS_USER_DATA;
const ARTIFACTS = process.env.KS_ARTIFACTS;
const FIRST_COMPILE_MS = Number(process.env.KS_TIMEOUT_MS ?? 240000);
const FIRST_ARCH = process.env.KS_FIRST_ARCH;

const HEADER = [
  "#![no_std]",
  "#![feature(abi_ptx)]",
  "#[panic_handler]",
  "fn panic(_: &core::panic::PanicInfo) -> ! { loop {} }",
  "#[no_mangle]",
  'pub unsafe extern "ptx-kernel" fn k(y: *mut u32) {',
];
const kernel = (...body) => [...HEADER, ...body, "}", ""].join("\n");
const FIX = path.join(WORKSPACE, "fix.rs");
const SPEC = path.join(WORKSPACE, "spec.rs");
const SPEC_LINE = "// kernelscope: y = u32[1 << 20] zeros; grid = 1 << 20 / 256; block = 256";
const PTX = viewTitle("saxpy.rs", "PTX");

/** The texts of the notification toasts on screen, with their severity. */
async function toasts(page) {
  const out = [];
  for (const t of await page.locator(".notifications-toasts .notification-toast").all()) {
    const text = ((await t.textContent()) ?? "").trim();
    const error = (await t.locator(".codicon-error").count()) > 0;
    out.push({ text, error });
  }
  return out;
}

/** Whether the PTX view says it targets `arch`. */
async function targets(page, arch) {
  await focusEditor(page, PTX);
  await page.keyboard.press("Control+Home");
  return (await renderedLines(page, PTX)).some((l) => new RegExp(`^\\s*\\.target\\s+${arch}\\b`).test(l.text));
}

// Written before VS Code lists the workspace: Quick Open may not list a file created later.
fs.writeFileSync(SPEC, [...HEADER.slice(0, 4), SPEC_LINE, ...HEADER.slice(4), "    *y = 1;", "}", ""].join("\n"));

runSteps(async (page) => {
  await step(page, "saxpy.rs compiles, its PTX beside it", async () => {
    await openAndCompile(page, URL, "saxpy.rs", FIRST_COMPILE_MS);
    await runCommand(page, "kernelscope: Show PTX");
    await focusBackIn(page, "saxpy.rs");
    await waitUntil(`the PTX to target ${FIRST_ARCH}, from the user settings`, () => targets(page, FIRST_ARCH), FIRST_COMPILE_MS);
  });

  await step(page, "the arch picker's \"default\" takes the user's arch setting back: sm_90", async () => {
    await pickArch(page, "saxpy.rs", "sm_80");
    await waitUntil("the PTX to target sm_80", () => targets(page, "sm_80"), FIRST_COMPILE_MS);
    await pickArch(page, "saxpy.rs", "default");
    await waitUntil("the PTX to target sm_90, the default", () => targets(page, "sm_90"), FIRST_COMPILE_MS);
    const user = fs.readFileSync(path.join(USER_DATA, "User", "settings.json"), "utf8");
    if (/"kernelscope\.arch"/.test(user)) throw new Error(`the user settings still set an arch:\n${user}`);
    const workspace = path.join(WORKSPACE, ".vscode", "settings.json");
    if (fs.existsSync(workspace) && /"kernelscope\.arch"/.test(fs.readFileSync(workspace, "utf8")))
      throw new Error(`the workspace settings still set an arch:\n${fs.readFileSync(workspace, "utf8")}`);
    // A settings change after it (any kernelscope setting) keeps the default.
    await page.waitForTimeout(2000);
    if (!(await targets(page, "sm_90"))) throw new Error("the arch went back from the default");
  });

  await step(page, "Restart Language Server restarts without an error notification", async () => {
    const before = (await toasts(page)).length;
    await focusEditor(page, "saxpy.rs");
    await runCommand(page, "kernelscope: Restart Language Server");
    // The new server starts (its first line in the output channel), then compiles the file
    // again. (The status bar's state between the two compiles can be too brief to see.)
    await waitUntil("the server to start again", () => (outputChannel(USER_DATA).match(/kernelscope: started /g) ?? []).length >= 2, STEP_MS);
    await waitUntil("the status bar to say the file compiled", async () => /kernelscope\s*\d+\s*ms/.test(await statusText(page)), FIRST_COMPILE_MS);
    await page.waitForTimeout(3000);
    const shown = await toasts(page);
    const errors = shown.filter((t) => t.error || /exited with code|got closed/i.test(t.text));
    if (errors.length) throw new Error(`error notifications: ${errors.map((t) => t.text).join(" | ")}`);
    console.log(`     ${shown.length - before} new notification(s)`);
    // Nor an error in the output channel ("[Error - 4:05:03 AM] Server process exited with code 0.").
    const logged = outputChannel(USER_DATA).split("\n").filter((l) => /^\[Error\b|exited/.test(l));
    if (logged.length) throw new Error(`the output channel logs errors: ${logged.join(" | ")}`);
    if ((outputChannel(USER_DATA).match(/kernelscope: started /g) ?? []).length !== 2) throw new Error("the server did not start twice");
  });

  await step(page, "a type error's diagnostic says what was expected and what was found", async () => {
    fs.writeFileSync(FIX, kernel("    let z: u32 = 1.0f32;", "    *y = z;"));
    await openFile(page, "fix.rs");
    await waitUntil("an error squiggle in fix.rs", async () => (await group(page, "fix.rs").locator(".squiggly-error").count()) > 0, FIRST_COMPILE_MS);
    // The PTX view follows fix.rs first: following it later would close the Command Palette.
    await page.locator(".tab", { hasText: viewTitle("fix.rs", "PTX") }).first().waitFor({ timeout: STEP_MS });
    await runCommand(page, "View: Focus Problems (Errors, Warnings, Infos)");
    const problem = await waitUntil("the problem in the Problems view", async () => {
      const rows = await page.locator(".markers-panel .monaco-list-row").allTextContents();
      return rows.find((r) => r.includes("mismatched types"));
    });
    console.log(`     ${problem.replace(/\s+/g, " ").slice(0, 160)}`);
    if (!problem.includes("expected `u32`, found `f32`")) throw new Error(`no expected/found: ${problem}`);
  });

  await step(page, "rustc's suggestion applies as a quick fix (Ctrl+.), and the file compiles", async () => {
    // The text changes on disk; VS Code reloads the unmodified file.
    fs.writeFileSync(FIX, kernel("    let x = 1u32;", "    x = 2;", "    *y = x;"));
    await waitUntil("fix.rs to show the new text", async () =>
      (await renderedLines(page, "fix.rs")).some((l) => l.text.includes("x = 2;")));
    await waitUntil("the E0384 problem", async () =>
      (await page.locator(".markers-panel .monaco-list-row").allTextContents()).some((r) => /assign twice/.test(r)), FIRST_COMPILE_MS);
    const line = lineOf(FIX, "x = 2;");
    await goToLine(page, "fix.rs", line + 1);
    await page.keyboard.press("Home");
    await applyQuickFix(page, /mutable/);
    await waitUntil("`let mut x` in the editor", async () =>
      (await renderedLines(page, "fix.rs")).some((l) => l.text.includes("let mut x = 1u32;")));
    await waitUntil("no error squiggle left", async () => (await group(page, "fix.rs").locator(".squiggly-error").count()) === 0, FIRST_COMPILE_MS);
    await page.screenshot({ path: path.join(ARTIFACTS, "quick-fix.png") });
  });

  await step(page, "a launch spec's shift by a fraction is a problem at the spec's line; its quick fix shifts first", async () => {
    await openFile(page, "spec.rs");
    await runCommand(page, "View: Focus Problems (Errors, Warnings, Infos)");
    const problem = await waitUntil("the launch spec's problem in the Problems view", async () => {
      const rows = await page.locator(".markers-panel .monaco-list-row").allTextContents();
      return rows.find((r) => r.includes("spec-shift-precedence"));
    }, FIRST_COMPILE_MS);
    console.log(`     ${problem.replace(/\s+/g, " ").slice(0, 160)}`);
    const line = lineOf(SPEC, "// kernelscope:");
    if (!problem.includes(`[Ln ${line + 1}, Col ${SPEC_LINE.indexOf("1 << 20 / 256") + 1}]`))
      throw new Error(`not at the shift on the spec's line ${line + 1}: ${problem}`);
    await goToLine(page, "spec.rs", line + 1);
    await page.keyboard.press("End");
    for (let i = 0; i < "; block = 256".length + 3; ++i) await page.keyboard.press("ArrowLeft");
    await applyQuickFix(page, /Shift first/);
    await waitUntil("the shift in parentheses in the editor", async () =>
      (await renderedLines(page, "spec.rs")).some((l) => l.text.includes("grid = (1 << 20) / 256; block = 256")));
    await waitUntil("no error squiggle left", async () => (await group(page, "spec.rs").locator(".squiggly-error").count()) === 0, FIRST_COMPILE_MS);
    await page.screenshot({ path: path.join(ARTIFACTS, "spec-quick-fix.png") });
  });

  await step(page, "the extension host log shows no kernelscope errors", () => noExtensionHostErrors(USER_DATA));
});
