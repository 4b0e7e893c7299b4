// End-to-end test of the kernelscope VS Code extension in a real VS Code (code-server)
// driven through headless Chromium with playwright-core.
//
// run.sh installs the .vsix and starts code-server on a copy of the examples; this script
// drives the page as a user would: opens saxpy.rs, runs "Show PTX", moves the cursor both
// ways, hovers, follows a code lens, changes the architecture, edits and saves, diffs,
// breaks the kernel, and saves another one. What VS Code shows is read back from the DOM
// and compared with what the kernelscope server itself answers over a separate LSP
// connection. Steps run in order, each one a named test; a failed step leaves a
// screenshot and the rest go on.
//
// Environment: KS_URL (the code-server page), KS_WORKSPACE (the folder it opened),
// KERNELSCOPE_BIN, KS_ARTIFACTS (screenshots), KS_USER_DATA (code-server's user data, for
// the extension host log), KS_CHROMIUM, KS_TIMEOUT_MS (first compile, default 240000).

import * as path from "node:path";
import { lineMapFromServer } from "./lsp-client.mjs";
import {
  DEFAULT_FILTERS,
  focusBackIn,
  focusEditor,
  goToLine,
  group,
  lineOf,
  NOT_AN_INSTRUCTION,
  noExtensionHostErrors,
  pickArch,
  renderedLines,
  runCommand,
  runSteps,
  statusText,
  step,
  STEP_MS,
  waitUntil,
} from "./page.mjs";

const URL = process.env.KS_URL;
const WORKSPACE = process.env.KS_WORKSPACE;
const BIN = process.env.KERNELSCOPE_BIN;
const ARTIFACTS = process.env.KS_ARTIFACTS;
const USER_DATA = process.env.KS_USER_DATA;
const FIRST_COMPILE_MS = Number(process.env.KS_TIMEOUT_MS ?? 240000);
/** The target the settings start the session at (run.sh); the test switches to sm_90 live. */
const FIRST_ARCH = process.env.KS_FIRST_ARCH;

const SOURCE = path.join(WORKSPACE, "saxpy.rs");
const SAXPY_LINE_TEXT = "*y.add(i) = a * *x.add(i) + *y.add(i);";
const EDITED_LINE_TEXT = "*y.add(i) = a * *x.add(i) - *y.add(i);";
/** A float multiply, add or fused multiply-add: what the SAXPY line computes. */
const FLOAT_ARITH = /^\s*(@!?%p\d+\s+)?(fma|mad|mul|add)\.(rn\.)?f32\b/;
/** What the edit brings in: a float subtraction. */
const FLOAT_SUB = /^\s*sub\.(rn\.)?f32\b/;
const PTX_TAB = "saxpy.rs · PTX";
/**
 * The filters the views use here: the defaults, but directives shown (run.sh's settings),
 * since the architecture is read from the PTX's `.target` line.
 */
const VIEW_FILTERS = { ...DEFAULT_FILTERS, directives: false };
/**
 * An instruction of each stage view of saxpy (text to find in the view) and what the hover
 * on it must say: the opcode and its meaning, modifiers decoded. `open` is the command
 * that shows the view when no tab of it is open yet.
 */
const HOVERS = [
  { tab: "saxpy.rs · PTX", open: "kernelscope: Show PTX", find: "ld.global.", says: ["ld", ".global", "global memory"] },
  { tab: "saxpy.rs · SASS", open: "kernelscope: Show SASS", find: "LDG.", says: ["LDG", "Load from global memory"] },
  { tab: "saxpy.rs · LLVM IR", open: "kernelscope: Show LLVM IR", find: "= fmul ", says: ["fmul", "Floating-point multiplication"] },
  { tab: "saxpy.rs · MIR", open: "kernelscope: Show MIR", find: "= Mul(", says: ["Mul", "Multiplication"] },
];
/** The transient status bar message that tells what a save changed in the PTX. */
const PTX_CHANGED = /kernelscope saxpy\.rs: .*PTX \+(\d+) −(\d+)/;

/**
 * Puts the cursor of the editor `title` on the first occurrence of `needle` (with the find
 * widget, as a user would), checks the cursor line holds it, and returns the text of the
 * hover that Show Hover (Ctrl+K Ctrl+I) opens there.
 */
async function hoverOnText(page, title, needle) {
  // Ctrl+K Ctrl+I is a chord: a key lost while the find widget closes loses the hover, so a
  // hover that does not come is asked for again from the start (a wrong one fails the step).
  const attempts = 3;
  for (let attempt = 1; ; ++attempt) {
    // Its tab, not a click in its text: in a narrow column the find widget of an earlier
    // attempt covers the text's top right, and a click there leaves the focus elsewhere.
    await group(page, title).locator(".tab.active").first().click();
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Control+F");
    const find = group(page, title).locator(".find-widget");
    await find.waitFor({ state: "visible" });
    await page.keyboard.press("Control+A");
    await page.keyboard.type(needle);
    await waitUntil(`a match of "${needle}"`, async () => /\d+ of \d+/.test((await find.locator(".matchesCount").textContent()) ?? ""));
    await page.keyboard.press("Escape");
    // The cursor's line as the status bar gives it ("Ln 71, Col 15").
    const line = await waitUntil(`the cursor on a line with "${needle}"`, async () => {
      const where = (await page.locator(".statusbar-item", { hasText: /Ln \d+, Col \d+/ }).first().textContent()) ?? "";
      const number = Number(where.match(/Ln (\d+)/)?.[1]);
      return (await renderedLines(page, title)).find((l) => l.number === number && l.text.includes(needle));
    });
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    try {
      const text = await waitUntil("a hover", async () => {
        const t = (await page.locator(".monaco-editor .monaco-hover:visible").allTextContents()).join("\n");
        return t.trim() && t;
      }, STEP_MS / attempts);
      await page.keyboard.press("Escape");
      return { line: line.text.trim(), text };
    } catch (error) {
      if (attempt === attempts) throw error;
      console.log(`     no hover yet (attempt ${attempt} of ${attempts}): asking again`);
      await page.keyboard.press("Escape");
    }
  }
}

// ---------------------------------------------------------------------------------------
// The server's own answers, over a separate connection.

async function serverLineMap(sourceLine) {
  return lineMapFromServer({ bin: BIN, workspace: WORKSPACE, source: SOURCE, line: sourceLine, options: { arch: FIRST_ARCH }, filters: VIEW_FILTERS, timeoutMs: FIRST_COMPILE_MS });
}

// ---------------------------------------------------------------------------------------
// The steps.

runSteps(async (page) => {
  const saxpyLine = lineOf(SOURCE, SAXPY_LINE_TEXT);
  let ptxBefore = [];

  await step(page, "VS Code loads with the extension", async () => {
    await page.goto(URL);
    await page.locator(".monaco-workbench").waitFor({ timeout: STEP_MS });
  });

  await step(page, "open saxpy.rs and the server compiles it", async () => {
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "saxpy.rs" }).first().click();
    await page.locator(".tab.active", { hasText: "saxpy.rs" }).waitFor({ timeout: STEP_MS });
    await waitUntil("the status bar to say the file compiled", async () => /kernelscope\s*\d+\s*ms/.test(await statusText(page)), FIRST_COMPILE_MS);
  });

  await step(page, "Show PTX opens the kernel's PTX beside the source", async () => {
    await focusEditor(page, "saxpy.rs");
    await runCommand(page, "kernelscope: Show PTX");
    await group(page, PTX_TAB).waitFor({ timeout: STEP_MS });
    const lines = await waitUntil("the PTX view to hold `.entry saxpy`", async () => {
      const ls = await renderedLines(page, PTX_TAB);
      return ls.some((l) => /\.entry\s+saxpy\b/.test(l.text)) && ls;
    });
    ptxBefore = lines.map((l) => l.text);
    await focusBackIn(page, "saxpy.rs");
  });

  await step(page, "the cursor on the SAXPY line highlights that line's instructions", async () => {
    await goToLine(page, "saxpy.rs", saxpyLine + 1);
    const highlighted = await waitUntil("highlighted PTX lines", async () => {
      const hs = (await renderedLines(page, PTX_TAB)).filter((l) => l.highlighted);
      return hs.length > 0 && hs;
    });
    const texts = highlighted.map((l) => l.text.trim());
    console.log(`     highlighted PTX lines ${highlighted.map((l) => l.number).join(",")}:\n       ${texts.join("\n       ")}`);
    if (!texts.some((t) => FLOAT_ARITH.test(t))) throw new Error("no fma/mul/add.f32 among the highlighted lines");
    if (texts.some((t) => /^\.entry|^\.visible|^\/\/|^\.version|^\.target/.test(t))) {
      throw new Error("directives are highlighted as the line's instructions");
    }
    const map = await serverLineMap(saxpyLine);
    const expected = new Set((map?.stages?.ptx ?? []).flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i + 1)));
    const shown = new Set(highlighted.map((l) => l.number));
    const rendered = new Set((await renderedLines(page, PTX_TAB)).map((l) => l.number));
    const missing = [...expected].filter((n) => rendered.has(n) && !shown.has(n));
    // Directives and labels between a line's instructions may share its highlight.
    const extra = highlighted.filter((l) => !expected.has(l.number) && !NOT_AN_INSTRUCTION.test(l.text)).map((l) => l.number);
    if (expected.size === 0) throw new Error("kernelscope/lineMap gave no PTX lines for the SAXPY line");
    if (missing.length || extra.length) {
      throw new Error(`highlight differs from kernelscope/lineMap: missing ${missing.join(",") || "-"}, extra ${extra.join(",") || "-"}`);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, "side-by-side.png") });
  });

  await step(page, "the cursor on a PTX line highlights its source line", async () => {
    // First a source line that became nothing, so that no source line is lit.
    await goToLine(page, "saxpy.rs", 1);
    await waitUntil("the source highlight to clear", async () =>
      (await renderedLines(page, "saxpy.rs")).every((l) => !l.highlighted),
    );
    const arith = (await renderedLines(page, PTX_TAB)).find((l) => FLOAT_ARITH.test(l.text));
    if (!arith) throw new Error("no float arithmetic line rendered in the PTX view");
    await goToLine(page, PTX_TAB, arith.number);
    await waitUntil("the SAXPY source line to be highlighted", async () => {
      const hs = (await renderedLines(page, "saxpy.rs")).filter((l) => l.highlighted);
      return hs.length === 1 && hs[0].number === saxpyLine + 1;
    });
  });

  await step(page, "hovering a PTX instruction shows the source line it came from", async () => {
    const arith = (await renderedLines(page, PTX_TAB)).find((l) => FLOAT_ARITH.test(l.text));
    if (!arith) throw new Error("no float arithmetic line rendered in the PTX view");
    // The mouse this time, as a user reading the PTX would.
    const arithLine = group(page, PTX_TAB).locator(".view-lines > .view-line", { hasText: arith.text.trim() }).first();
    await arithLine.locator("span span").first().hover();
    const where = new RegExp(`saxpy\\.rs:${saxpyLine + 1}\\b`);
    const text = await waitUntil(`the hover to name saxpy.rs:${saxpyLine + 1}`, async () => {
      const t = (await page.locator(".monaco-editor .monaco-hover:visible").allTextContents()).join("\n");
      return where.test(t) && t;
    });
    console.log(`     hover: ${text.replace(/\s+/g, " ").slice(0, 200)}`);
    await page.keyboard.press("Escape");
  });

  await step(page, "hovering the SAXPY line shows its instructions", async () => {
    await goToLine(page, "saxpy.rs", saxpyLine + 1);
    await page.keyboard.press("End");
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    const hover = page.locator(".monaco-editor .monaco-hover .rendered-markdown").first();
    await hover.waitFor({ state: "visible", timeout: STEP_MS });
    const text = await waitUntil("the hover to list instructions", async () => {
      const t = (await page.locator(".monaco-editor .monaco-hover:visible").allTextContents()).join("\n");
      return /\b(fma|mad|mul|add)\.(rn\.)?f32\b|ld\.global|st\.global/.test(t) && t;
    });
    console.log(`     hover: ${text.replace(/\s+/g, " ").slice(0, 200)}`);
    await page.screenshot({ path: path.join(ARTIFACTS, "hover.png") });
    await page.keyboard.press("Escape");
  });

  await step(page, "the kernel's SASS code lens opens the SASS view", async () => {
    const lens = group(page, "saxpy.rs").locator(".codelens-decoration a", { hasText: /^SASS$/ }).first();
    await lens.waitFor({ timeout: STEP_MS });
    await lens.click();
    await group(page, "saxpy.rs · SASS").waitFor({ timeout: STEP_MS });
    await focusBackIn(page, "saxpy.rs");
    await waitUntil("SASS instructions in the view", async () =>
      (await renderedLines(page, "saxpy.rs · SASS")).some((l) => /\b(FFMA|FMUL|FADD|LDG|STG|IMAD)\b/.test(l.text)),
    );
    await page.screenshot({ path: path.join(ARTIFACTS, "sass.png") });
    await page.locator(".tab", { hasText: PTX_TAB }).first().click();
    await group(page, PTX_TAB).waitFor({ timeout: STEP_MS });
  });

  for (const h of HOVERS) {
    await step(page, `Show Hover on \`${h.find.trim()}\` in the ${h.tab} view explains the instruction`, async () => {
      if ((await page.locator(".tab", { hasText: h.tab }).count()) > 0) {
        await page.locator(".tab", { hasText: h.tab }).first().click();
      } else {
        await focusEditor(page, "saxpy.rs");
        await runCommand(page, h.open);
        await focusBackIn(page, "saxpy.rs");
      }
      await group(page, h.tab).waitFor({ timeout: STEP_MS });
      await waitUntil(`text in ${h.tab}`, async () => (await renderedLines(page, h.tab)).some((l) => l.text.trim()));
      const { line, text } = await hoverOnText(page, h.tab, h.find);
      console.log(`     ${line}: ${text.replace(/\s+/g, " ").slice(0, 160)}`);
      const missing = h.says.filter((w) => !text.includes(w));
      if (missing.length) throw new Error(`the hover lacks ${missing.join(", ")}: ${text.slice(0, 400)}`);
    });
  }
  await step(page, "back to the PTX view", async () => {
    await page.locator(".tab", { hasText: PTX_TAB }).first().click();
    await group(page, PTX_TAB).waitFor({ timeout: STEP_MS });
  });

  await step(page, `Select Target GPU Architecture recompiles for it (${FIRST_ARCH} -> sm_90)`, async () => {
    await focusEditor(page, PTX_TAB);
    await page.keyboard.press("Control+Home");
    await waitUntil(`the PTX view to target ${FIRST_ARCH}, from the settings`, async () =>
      (await renderedLines(page, PTX_TAB)).some((l) => new RegExp(`^\\s*\\.target\\s+${FIRST_ARCH}\\b`).test(l.text)),
    STEP_MS);
    await pickArch(page, "saxpy.rs", "sm_90");
    await focusEditor(page, PTX_TAB);
    await page.keyboard.press("Control+Home");
    await waitUntil("the PTX view to target sm_90", async () =>
      (await renderedLines(page, PTX_TAB)).some((l) => /^\s*\.target\s+sm_90\b/.test(l.text)),
    FIRST_COMPILE_MS);
  });

  let toldBefore = "";
  await step(page, "editing and saving updates the PTX view", async () => {
    toldBefore = (await page.locator(".statusbar-item", { hasText: PTX_CHANGED }).allTextContents()).join("\n");
    await goToLine(page, "saxpy.rs", saxpyLine + 1);
    await page.keyboard.press("End");
    await page.keyboard.press("Shift+Home");
    await page.keyboard.insertText(EDITED_LINE_TEXT);
    await page.keyboard.press("Control+S");
    if (ptxBefore.some((t) => FLOAT_SUB.test(t))) throw new Error("the PTX held a sub.f32 before the edit");
    await waitUntil("the PTX view to show the new subtraction", async () => {
      const now = (await renderedLines(page, PTX_TAB)).map((l) => l.text);
      return now.some((t) => FLOAT_SUB.test(t));
    }, FIRST_COMPILE_MS);
    await page.screenshot({ path: path.join(ARTIFACTS, "after-save.png") });
  });

  await step(page, "the status bar tells what the save changed in the PTX", async () => {
    // `+ y` became `- y`: an add replaced by a subtraction.
    const told = await waitUntil("a status bar message with the PTX's changes", async () => {
      const t = (await page.locator(".statusbar-item", { hasText: PTX_CHANGED }).allTextContents()).join("\n");
      return t && t !== toldBefore && t;
    });
    const [, added, removed] = told.match(PTX_CHANGED);
    console.log(`     ${told.trim()}`);
    if (Number(added) < 1 || Number(removed) < 1) throw new Error(`expected an instruction added and one removed: ${told}`);
  });

  await step(page, "Diff with Previous Save shows the change in VS Code's diff editor", async () => {
    await focusEditor(page, "saxpy.rs");
    await runCommand(page, "kernelscope: Diff with Previous Save");
    const diff = page.locator(".monaco-diff-editor").first();
    await diff.waitFor({ state: "visible", timeout: STEP_MS });
    await waitUntil("an inserted line in the diff", async () => (await diff.locator(".line-insert, .char-insert").count()) > 0);
    await page.screenshot({ path: path.join(ARTIFACTS, "diff.png") });
    // Its tab's close button, clicked as an event: in a narrow column the group's title
    // actions lie over the tab, so a pointer there would land on them.
    await page.locator(".tab", { hasText: "↔" }).first().locator(".tab-actions .action-label").first().dispatchEvent("click");
    await diff.waitFor({ state: "detached", timeout: STEP_MS });
  });

  await step(page, "a kernel that stops compiling shows diagnostics and keeps the last PTX", async () => {
    await focusEditor(page, "saxpy.rs");
    await page.keyboard.press("Control+End");
    await page.keyboard.insertText("\ngarbage\n");
    await page.keyboard.press("Control+S");
    await waitUntil("an error squiggle in the source", async () => (await group(page, "saxpy.rs").locator(".squiggly-error").count()) > 0, FIRST_COMPILE_MS);
    const lines = await renderedLines(page, PTX_TAB);
    if (!lines.some((l) => FLOAT_SUB.test(l.text)) || lines.some((l) => /^\/\/ kernelscope:/.test(l.text))) {
      throw new Error("the PTX view lost the last good PTX");
    }
    await page.screenshot({ path: path.join(ARTIFACTS, "failed-compile.png") });
  });

  await step(page, "the first save of another kernel opens its PTX beside it", async () => {
    // No view open (an open PTX view would follow to the other file by itself).
    await runCommand(page, "View: Close All Editor Groups");
    await waitUntil("no editor open", async () => (await page.locator(".part.editor .tab").count()) === 0);
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "vector_add.rs" }).first().click();
    await page.locator('.tab.active[data-resource-name="vector_add.rs"]').waitFor({ timeout: STEP_MS });
    await focusEditor(page, "vector_add.rs");
    await page.keyboard.press("Control+End");
    await page.keyboard.insertText("\n");
    await page.keyboard.press("Control+S");
    await group(page, "vector_add.rs · PTX").waitFor({ timeout: FIRST_COMPILE_MS });
    await waitUntil("the view to hold PTX", async () =>
      (await renderedLines(page, "vector_add.rs · PTX")).some((l) => /^\s*\.(version|target|visible|entry)\b/.test(l.text)),
    );
  });

  await step(page, "the extension host log shows no kernelscope errors", () => noExtensionHostErrors(USER_DATA));
});
