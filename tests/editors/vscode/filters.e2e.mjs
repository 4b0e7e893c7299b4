// End-to-end test of the stage views' filters in a real VS Code (code-server in headless
// Chromium): with the default filters the PTX view has no `.loc` lines; "kernelscope:
// Toggle Filters" turns debugLocations off (kept in the user settings) and they come back;
// with the filters on and off, the lines lit for the SAXPY line are exactly the ones the
// server's kernelscope/lineMap gives for the same filters.
//
// Environment: as e2e.mjs (run.sh sets it).

import * as fs from "node:fs";
import * as path from "node:path";
import { lineMapFromServer } from "./lsp-client.mjs";
import { DEFAULT_FILTERS, focusBackIn, focusEditor, goToLine, group, lineOf, NOT_AN_INSTRUCTION, noExtensionHostErrors, openAndCompile, renderedLines, runCommand, runSteps, step, STEP_MS, waitUntil } from "./page.mjs";

const URL = process.env.KS_URL;
const WORKSPACE = process.env.KS_WORKSPACE;
const USER_DATA = process.env.KS_USER_DATA;
const ARTIFACTS = process.env.KS_ARTIFACTS;
const BIN = process.env.KERNELSCOPE_BIN;
const FIRST_COMPILE_MS = Number(process.env.KS_TIMEOUT_MS ?? 240000);
const SOURCE = path.join(WORKSPACE, "saxpy.rs");
const SAXPY_LINE = lineOf(SOURCE, "*y.add(i) = a * *x.add(i) + *y.add(i);");
const PTX = "saxpy.rs · PTX";
const ALL_ON = DEFAULT_FILTERS;
const LOC = /^\s*\.loc\s/;

/** Lights the SAXPY line and compares the lit PTX lines with the server's lineMap. */
async function linkedExactly(page, filters) {
  await goToLine(page, "saxpy.rs", SAXPY_LINE + 1);
  const lit = await waitUntil("lit PTX lines", async () => {
    const ls = (await renderedLines(page, PTX)).filter((l) => l.highlighted);
    return ls.length > 0 && ls;
  });
  const map = await lineMapFromServer({ bin: BIN, workspace: WORKSPACE, source: SOURCE, line: SAXPY_LINE, options: {}, filters, timeoutMs: FIRST_COMPILE_MS });
  const want = new Set((map?.stages?.ptx ?? []).flatMap((r) => Array.from({ length: r.end - r.start + 1 }, (_, i) => r.start + i + 1)));
  const rendered = new Set((await renderedLines(page, PTX)).map((l) => l.number));
  const got = new Set(lit.map((l) => l.number));
  const missing = [...want].filter((n) => rendered.has(n) && !got.has(n));
  // A `.loc` or label between a line's instructions shares their highlight.
  const extra = lit.filter((l) => !want.has(l.number) && !NOT_AN_INSTRUCTION.test(l.text)).map((l) => l.number);
  console.log(`     lit ${[...got].join(",")}; lineMap ${[...want].join(",")}`);
  if (want.size === 0) throw new Error("kernelscope/lineMap gave no PTX lines for the SAXPY line");
  if (missing.length || extra.length) throw new Error(`lit lines differ from lineMap: missing ${missing.join(",") || "-"}, extra ${extra.join(",") || "-"}`);
  return lit;
}

runSteps(async (page) => {
  await step(page, "saxpy.rs compiles and Show PTX opens its view", async () => {
    await openAndCompile(page, URL, "saxpy.rs", FIRST_COMPILE_MS);
    await focusEditor(page, "saxpy.rs");
    await runCommand(page, "kernelscope: Show PTX");
    await group(page, PTX).waitFor({ timeout: STEP_MS });
    await focusBackIn(page, "saxpy.rs");
  });

  await step(page, "filters on (the default): no .loc lines, and the lit lines are lineMap's", async () => {
    const lit = await linkedExactly(page, ALL_ON);
    const shown = await renderedLines(page, PTX);
    if (shown.some((l) => LOC.test(l.text))) throw new Error("a .loc line is shown with debugLocations on");
    if (!lit.some((l) => /\b(fma|mul|add)\.(rn\.)?f32\b/.test(l.text))) throw new Error("no float arithmetic among the lit lines");
    await page.screenshot({ path: path.join(ARTIFACTS, "filters-on.png") });
  });

  await step(page, "Toggle Filters turns debugLocations off and remembers it", async () => {
    await runCommand(page, "kernelscope: Toggle Filters");
    const widget = page.locator(".quick-input-widget");
    // Titles a user reads, not the settings' camelCase keys or Markdown backticks.
    const labels = (await widget.locator(".monaco-list-row .label-name").allTextContents()).map((t) => t.trim());
    if (labels.some((l) => /[a-z][A-Z]|`/.test(l))) throw new Error(`unreadable titles: ${labels.join(", ")}`);
    const row = widget.locator(".monaco-list-row", { hasText: "Debug locations" }).first();
    await row.waitFor();
    // A click on the row flips its checkbox; the count says when the pick has it.
    await waitUntil("debugLocations unchecked (6 of 7 selected)", async () => {
      if (/7 Selected/.test((await widget.textContent()) ?? "")) await row.locator(".label-name, .monaco-icon-label").first().click();
      await new Promise((r) => setTimeout(r, 300));
      return /6 Selected/.test((await widget.textContent()) ?? "");
    });
    await widget.locator(".monaco-button", { hasText: "OK" }).first().click();
    await widget.waitFor({ state: "hidden" });
    await waitUntil("the user settings to hold the choice", async () =>
      /"kernelscope\.filters\.debugLocations":\s*false/.test(fs.readFileSync(path.join(USER_DATA, "User", "settings.json"), "utf8")));
    // Only the filter changed is written: the others keep following their defaults.
    const written = fs.readFileSync(path.join(USER_DATA, "User", "settings.json"), "utf8").match(/"kernelscope\.filters\.\w+"/g) ?? [];
    if (written.length !== 1) throw new Error(`filters written to the user settings: ${written.join(", ")}`);
  });

  await step(page, "debug locations shown: .loc lines again, and the lit lines are lineMap's", async () => {
    await goToLine(page, "saxpy.rs", SAXPY_LINE + 1);
    await waitUntil(".loc lines in the PTX view", async () => (await renderedLines(page, PTX)).some((l) => LOC.test(l.text)));
    await linkedExactly(page, { ...ALL_ON, debugLocations: false });
    await page.screenshot({ path: path.join(ARTIFACTS, "filters-off.png") });
  });

  await step(page, "the extension host log shows no kernelscope errors", () => noExtensionHostErrors(USER_DATA));
});
