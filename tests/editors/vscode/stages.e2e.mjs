// End-to-end test of "kernelscope: Open Stages Side by Side" in a real VS Code (code-server
// in headless Chromium): source | PTX | SASS tiled in three editor groups, the highlighted
// instructions in view at once, the stage groups following the active file with one tab
// each and titles that name file and stage, and the MIR code lens at the top of the MIR.
//
// Environment: as e2e.mjs (run.sh sets it).

import * as fs from "node:fs";
import * as path from "node:path";
import { focusEditor, goToLine, group, noExtensionHostErrors, openAndCompile, renderedLines, runCommand, runSteps, step, STEP_MS, waitUntil } from "./page.mjs";

const URL = process.env.KS_URL;
const WORKSPACE = process.env.KS_WORKSPACE;
const USER_DATA = process.env.KS_USER_DATA;
const ARTIFACTS = process.env.KS_ARTIFACTS;
const FIRST_COMPILE_MS = Number(process.env.KS_TIMEOUT_MS ?? 240000);
const SAXPY_LINE = fs.readFileSync(path.join(WORKSPACE, "saxpy.rs"), "utf8").split("\n")
  .findIndex((l) => l.includes("*y.add(i) = a * *x.add(i) + *y.add(i);"));
/** What VS Code's tab shows for a view: the path's `/` drawn as a division slash (U+2215). */
const title = (relative, stage) => `${relative.replaceAll("/", "\u2215")} · ${stage}`;

/** The editor groups left to right: position and the titles of their tabs. */
async function groups(page) {
  const out = [];
  for (const g of await page.locator(".part.editor .editor-group-container").all()) {
    const box = await g.boundingBox();
    if (!box || box.width < 10) continue;
    const tabs = (await g.locator(".tab .label-name").allTextContents()).map((t) => t.trim());
    const active = ((await g.locator(".tab.active .label-name").first().textContent().catch(() => "")) ?? "").trim();
    out.push({ x: box.x, y: box.y, tabs, active });
  }
  return out.sort((a, b) => a.x - b.x);
}

/** Opens a file of the workspace by its path, through Quick Open. */
async function openFile(page, relative) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget .quick-input-box input");
  await input.waitFor({ state: "visible" });
  await input.fill(relative);
  // The list filters as it is typed: wait until the first row is the file itself.
  const first = page.locator(".quick-input-widget .monaco-list-row").first();
  await waitUntil(`Quick Open to list ${relative} first`, async () =>
    ((await first.locator(".label-name").first().textContent()) ?? "").trim() === path.basename(relative));
  await page.keyboard.press("Enter");
  await page.locator(".tab.active", { hasText: path.basename(relative) }).first().waitFor({ timeout: STEP_MS });
}

runSteps(async (page) => {
  await step(page, "VS Code loads and saxpy.rs compiles", async () => {
    await openAndCompile(page, URL, "saxpy.rs", FIRST_COMPILE_MS);
  });

  await step(page, "one command tiles source | PTX | SASS in three groups side by side", async () => {
    // The cursor on the SAXPY line first: its instructions must be in view as the views open.
    await goToLine(page, "saxpy.rs", SAXPY_LINE + 1);
    await runCommand(page, "kernelscope: Open Stages Side by Side");
    const tiled = await waitUntil("three groups: saxpy.rs, its PTX, its SASS", async () => {
      const gs = await groups(page);
      return gs.length === 3 && gs[1].active === title("saxpy.rs", "PTX") && gs[2].active === title("saxpy.rs", "SASS") && gs;
    });
    console.log(`     ${tiled.map((g) => g.active).join(" | ")}`);
    if (tiled[0].active !== "saxpy.rs") throw new Error(`the first group shows ${tiled[0].active}`);
    if (new Set(tiled.map((g) => Math.round(g.y))).size !== 1) throw new Error("the groups are not in one row");
    const focused = await page.locator(".editor-group-container.active .tab.active .label-name").textContent();
    if (focused?.trim() !== "saxpy.rs") throw new Error(`the focus left the source: ${focused}`);
  });

  await step(page, "the SAXPY line's instructions are highlighted and in view without moving the cursor", async () => {
    for (const stage of ["PTX", "SASS"]) {
      const lit = await waitUntil(`highlighted ${stage} lines on screen`, async () => {
        const hs = (await renderedLines(page, title("saxpy.rs", stage))).filter((l) => l.highlighted);
        return hs.length > 0 && hs;
      });
      console.log(`     ${stage}: ${lit.map((l) => l.number).join(",")}`);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, "stages.png") });
  });

  await step(page, "the stage groups follow another file, one tab each", async () => {
    await focusEditor(page, "saxpy.rs");
    await openFile(page, "vector_add.rs");
    await waitUntil("the PTX and SASS groups to show vector_add.rs", async () => {
      const g = await groups(page);
      return g.length === 3 && g[1].active === title("vector_add.rs", "PTX") && g[2].active === title("vector_add.rs", "SASS");
    }, FIRST_COMPILE_MS);
    // saxpy's views are closed once vector_add's are shown: one tab each, not a pile.
    await waitUntil("one tab in each stage group", async () => {
      const g = await groups(page);
      return g[1].tabs.length === 1 && g[2].tabs.length === 1;
    }, 10000).catch(async (error) => {
      throw new Error(`${error.message}: ${JSON.stringify((await groups(page)).map((g) => g.tabs))}`);
    });
    await waitUntil("vector_add's PTX in the PTX group", async () =>
      (await renderedLines(page, title("vector_add.rs", "PTX"))).some((l) => /\.entry\s+vector_add\b/.test(l.text)), FIRST_COMPILE_MS);
  });

  await step(page, "a crate module without kernels gets its crate's PTX, titled with its path", async () => {
    await openFile(page, "crate/src/math.rs");
    const ptx = title("crate/src/math.rs", "PTX");
    await waitUntil(`a group titled ${ptx}, its only tab`, async () =>
      (await groups(page)).some((g) => g.active === ptx && g.tabs.length === 1), FIRST_COMPILE_MS);
    await waitUntil("the crate's kernels in the module's PTX", async () =>
      (await renderedLines(page, ptx)).some((l) => /\.entry\s+(scaled_saxpy|clamp_square)\b/.test(l.text)), FIRST_COMPILE_MS);
  });

  await step(page, "the MIR code lens opens the MIR at its top", async () => {
    await openFile(page, "saxpy.rs");
    const mir = title("saxpy.rs", "MIR");
    const lens = group(page, "saxpy.rs").locator(".codelens-decoration a", { hasText: /^MIR$/ }).first();
    await lens.waitFor({ timeout: STEP_MS });
    await lens.click();
    await waitUntil("MIR text", async () => (await renderedLines(page, mir)).some((l) => l.text.trim()), FIRST_COMPILE_MS);
    // Scrolled away, then the lens again: back at the top.
    await focusEditor(page, mir);
    await page.keyboard.press("Control+End");
    await waitUntil("the MIR view scrolled down", async () => !(await renderedLines(page, mir)).some((l) => l.number === 1));
    await goToLine(page, "saxpy.rs", 1);
    await lens.click();
    await waitUntil("line 1 of the MIR on screen", async () => (await renderedLines(page, mir)).some((l) => l.number === 1));
  });

  await step(page, "a view opened by Show LLVM IR shows the cursor line's lines at once", async () => {
    await goToLine(page, "saxpy.rs", SAXPY_LINE + 1);
    await runCommand(page, "kernelscope: Show LLVM IR");
    const ll = title("saxpy.rs", "LLVM IR");
    const lit = await waitUntil("highlighted LLVM IR lines on screen", async () => {
      const hs = (await renderedLines(page, ll)).filter((l) => l.highlighted);
      return hs.length > 0 && hs;
    });
    console.log(`     LLVM IR: ${lit.map((l) => l.number).join(",")}`);
  });

  await step(page, "the extension host log shows no kernelscope errors", () => noExtensionHostErrors(USER_DATA));
});
