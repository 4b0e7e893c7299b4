// End-to-end test of "kernelscope: Open Stages Side by Side" in a real VS Code (code-server
// in headless Chromium): source | PTX | SASS tiled in three editor groups, the highlighted
// instructions in view at once, the stage groups following the active file with one tab
// each and titles that name file and stage (real slashes), the MIR code lens at the top of
// the MIR, and Show PTX's one view that follows the active file.
//
// Also: the layout (50/25/25, no sidebar, no minimap in the views, stage groups locked so a
// file opened from the explorer lands in the source's group, back after a window reload,
// closed with the source),
// linked highlighting per group (PTX -> source and SASS, SASS -> source and PTX), an inlined
// call's count and lit lines, whose bar reads at least 3:1 against the editor's background
// in a light and a dark theme, and the README's screenshots in both.
//
// The theme follows the browser's colour scheme (`window.autoDetectColorScheme`, Chromium's
// prefers-color-scheme as the page emulates it): light but for the dark screenshot.
//
// Environment: as e2e.mjs (run.sh sets it); KS_DOCS_IMAGES, a folder (docs/images) to
// receive vscode-tiled-light.png and vscode-tiled-dark.png as well.

import * as fs from "node:fs";
import * as path from "node:path";
import {
  editorGroups,
  editorIsDark,
  focusEditor,
  focusBackIn,
  goToLine,
  group,
  leftBars,
  lineOf,
  noExtensionHostErrors,
  openAndCompile,
  openFile,
  renderedLines,
  runCommand,
  runSteps,
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
const SAXPY_LINE = lineOf(path.join(WORKSPACE, "saxpy.rs"), "*y.add(i) = a * *x.add(i) + *y.add(i);");
const title = viewTitle;
const groups = editorGroups;

runSteps(async (page) => {
  await step(page, "VS Code loads and saxpy.rs compiles", async () => {
    // Minimaps on, as VS Code has them by default: the stage views keep theirs off. The
    // theme follows the browser's colour scheme: a theme written to the settings later is
    // applied by code-server only a minute or more after.
    const settingsFile = path.join(USER_DATA, "User", "settings.json");
    fs.writeFileSync(settingsFile, JSON.stringify({
      ...JSON.parse(fs.readFileSync(settingsFile, "utf8")),
      "editor.minimap.enabled": true,
      "window.autoDetectColorScheme": true,
      "workbench.preferredLightColorTheme": "Default Light Modern",
      "workbench.preferredDarkColorTheme": "Default Dark Modern",
    }, null, 2));
    await page.emulateMedia({ colorScheme: "light" });
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
    // Each view takes the focus for a moment as it opens and locks its group; the command
    // ends with it back in the source.
    await focusBackIn(page, "saxpy.rs");
    // Half the width for the source, a quarter for each stage, no sidebar beside them.
    const widths = tiled.map((g) => Math.round(g.width));
    console.log(`     widths ${widths.join(" | ")}`);
    if (Math.abs(widths[0] - 2 * widths[1]) > 0.1 * widths[0] || Math.abs(widths[1] - widths[2]) > 0.1 * widths[1]) {
      throw new Error(`the widths are not 50/25/25: ${widths.join(", ")}`);
    }
    if (await page.locator(".part.sidebar").isVisible()) throw new Error("the sidebar is still open");
    // Minimaps (on in the settings) in the source only.
    const minimap = async (t) => group(page, t).locator(".minimap").first().isVisible().catch(() => false);
    await waitUntil("a minimap beside the source", () => minimap("saxpy.rs"), 10000);
    for (const stage of ["PTX", "SASS"]) {
      if (await minimap(title("saxpy.rs", stage))) throw new Error(`a minimap in the ${stage} view`);
    }
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

  // Three panes, one answer: each group's lit lines are read on their own, not only the
  // active one's.
  const litIn = async (t) => (await renderedLines(page, t)).filter((l) => l.highlighted);
  const numbers = (ls) => ls.map((l) => l.number).join(",");
  for (const [from, to, instruction, sourceLine] of [
    ["PTX", "SASS", /%ctaid\.x/, lineOf(path.join(WORKSPACE, "saxpy.rs"), "let i = nvptx::_block_idx_x()")],
    ["SASS", "PTX", /\bFMUL\b/, SAXPY_LINE],
  ]) {
    await step(page, `a cursor in the ${from} view lights its source line and the ${to} lines of that line`, async () => {
      const before = numbers(await litIn(title("saxpy.rs", to)));
      const target = (await renderedLines(page, title("saxpy.rs", from))).find((l) => instruction.test(l.text));
      if (!target) throw new Error(`no ${instruction} line on screen in the ${from} view`);
      await goToLine(page, title("saxpy.rs", from), target.number);
      await waitUntil(`saxpy.rs to light line ${sourceLine + 1} alone`, async () =>
        numbers(await litIn("saxpy.rs")) === String(sourceLine + 1), 10000).catch(async (error) => {
        throw new Error(`${error.message}: it lights ${numbers(await litIn("saxpy.rs"))}`);
      });
      const want = from === "PTX" ? /\bS2U?R\b.*SR_CTAID\.X/ : /\bmul\.rn\.f32\b/;
      const lit = await waitUntil(`the ${to} view to light the lines of line ${sourceLine + 1}`, async () => {
        const ls = await litIn(title("saxpy.rs", to));
        return ls.some((l) => want.test(l.text)) && ls;
      }, 10000).catch(async (error) => {
        throw new Error(`${error.message}: it lights ${numbers(await litIn(title("saxpy.rs", to)))} (before: ${before})`);
      });
      console.log(`     ${from} ${target.number} → saxpy.rs ${sourceLine + 1}, ${to} ${numbers(lit)} (before: ${before})`);
      await page.screenshot({ path: path.join(ARTIFACTS, `linked-from-${from.toLowerCase()}.png`) });
    });
  }

  await step(page, "a file opened from the explorer with the focus in the PTX view lands in the source's group", async () => {
    await focusEditor(page, title("saxpy.rs", "PTX"));
    await runCommand(page, "View: Show Explorer");
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "elementwise_mul.rs" }).first().click();
    await waitUntil("elementwise_mul.rs in the first group, its views alone in the stage groups", async () => {
      const g = await groups(page);
      return g.length === 3 && g[0].active === "elementwise_mul.rs" && g[1].active === title("elementwise_mul.rs", "PTX") &&
        g[2].active === title("elementwise_mul.rs", "SASS") && g[1].tabs.length === 1 && g[2].tabs.length === 1;
    }, FIRST_COMPILE_MS).catch(async (error) => {
      throw new Error(`${error.message}: ${JSON.stringify((await groups(page)).map((g) => g.tabs))}`);
    });
    await runCommand(page, "View: Close Primary Side Bar");
  });

  await step(page, "an inlined call's line counts its code (inlined) and its instructions are lit", async () => {
    const call = lineOf(path.join(WORKSPACE, "elementwise_mul.rs"), "= grid_stride();");
    await goToLine(page, "elementwise_mul.rs", call + 1);
    const hinted = await waitUntil("the call's line to end in a count marked (inlined)", async () =>
      (await renderedLines(page, "elementwise_mul.rs")).find((l) => l.number === call + 1 && /\d+ ptx\b.*\(inlined\)/.test(l.text)), FIRST_COMPILE_MS);
    console.log(`     ${hinted.text.trim()}`);
    for (const stage of ["PTX", "SASS"]) {
      const lit = await waitUntil(`lit ${stage} lines for the call`, async () => {
        const ls = (await renderedLines(page, title("elementwise_mul.rs", stage))).filter((l) => l.highlighted);
        return ls.length > 0 && ls;
      }, FIRST_COMPILE_MS);
      console.log(`     ${stage}: ${lit.map((l) => l.number).join(",")}`);
    }
  });

  await step(page, "the inlined call's bar reads at least 3:1 in a light and a dark theme (the README's screenshots)", async () => {
    // KS_DOCS_IMAGES (docs/images, for one) receives the screenshots too, as the README
    // shows them: the cursor on the call, its inlined lines marked in both views.
    const call = lineOf(path.join(WORKSPACE, "elementwise_mul.rs"), "= grid_stride();");
    for (const [scheme, shot] of [["light", true], ["dark", true], ["light", false]]) {
      await page.emulateMedia({ colorScheme: scheme });
      await waitUntil(`the ${scheme} theme`, async () => (scheme === "dark") === (await editorIsDark(page)), 30000);
      if (!shot) break;  // back in the light theme the other steps read
      await goToLine(page, "elementwise_mul.rs", call + 1);
      for (const stage of ["PTX", "SASS"]) {
        const bars = await waitUntil(`the bar of the inlined ${stage} lines`, async () => {
          const bs = await leftBars(page, title("elementwise_mul.rs", stage));
          return bs.length > 0 && bs;
        }, 10000);
        const worst = bars.reduce((a, b) => (b.contrast < a.contrast ? b : a));
        console.log(`     ${scheme}, ${stage}: ${bars.length} lines, ${worst.width}px ${worst.style} ${worst.color} on ${worst.background}: ${worst.contrast.toFixed(2)}:1`);
        // A solid bar a few pixels wide, not a 1-pixel dashed margin that a dark theme hides.
        const faint = bars.filter((b) => b.style !== "solid" || b.width < 3 || b.contrast < 3);
        if (faint.length) throw new Error(`a faint bar in the ${stage} view (${scheme}): ${JSON.stringify(faint[0])}`);
      }
      await page.waitForTimeout(1000);  // the hints and the lens settle
      const file = path.join(ARTIFACTS, `vscode-tiled-${scheme}.png`);
      await page.screenshot({ path: file });
      if (process.env.KS_DOCS_IMAGES) fs.copyFileSync(file, path.join(process.env.KS_DOCS_IMAGES, `vscode-tiled-${scheme}.png`));
    }
  });

  await step(page, "a window reload brings the tiled layout back, no empty group, still following", async () => {
    await page.reload();
    await page.locator(".monaco-workbench").waitFor({ timeout: STEP_MS });
    await waitUntil("elementwise_mul.rs | its PTX | its SASS, one view in each stage group", async () => {
      const g = await groups(page);
      return g.length === 3 && g[1].tabs.length === 1 && g[2].tabs.length === 1 && g[0].active === "elementwise_mul.rs" &&
        g[1].active === title("elementwise_mul.rs", "PTX") && g[2].active === title("elementwise_mul.rs", "SASS");
    }, FIRST_COMPILE_MS).catch(async (error) => {
      throw new Error(`${error.message}: ${JSON.stringify((await groups(page)).map((g) => g.tabs))}`);
    });
    await waitUntil("elementwise_mul's PTX in its view", async () =>
      (await renderedLines(page, title("elementwise_mul.rs", "PTX"))).some((l) => /\.entry\s+elementwise_mul\b/.test(l.text)), FIRST_COMPILE_MS);
  });

  await step(page, "the stage groups follow another file, one tab each", async () => {
    await focusEditor(page, "elementwise_mul.rs");
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
    // The lens's command gives the focus back to the source once the view is shown: only
    // then is the view focused for the key, or the key would go to the source.
    await focusBackIn(page, "saxpy.rs");
    // Scrolled away, then the lens again: back at the top.
    await focusEditor(page, mir);
    await page.keyboard.press("Control+End");
    await waitUntil("the MIR view scrolled down", async () => !(await renderedLines(page, mir)).some((l) => l.number === 1));
    await goToLine(page, "saxpy.rs", 1);
    await lens.click();
    await waitUntil("line 1 of the MIR on screen", async () => (await renderedLines(page, mir)).some((l) => l.number === 1));
    await focusBackIn(page, "saxpy.rs");
  });

  await step(page, "a view opened by Show LLVM IR shows the cursor line's lines at once", async () => {
    await goToLine(page, "saxpy.rs", SAXPY_LINE + 1);
    await runCommand(page, "kernelscope: Show LLVM IR");
    await focusBackIn(page, "saxpy.rs");
    const ll = title("saxpy.rs", "LLVM IR");
    const lit = await waitUntil("highlighted LLVM IR lines on screen", async () => {
      const hs = (await renderedLines(page, ll)).filter((l) => l.highlighted);
      return hs.length > 0 && hs;
    });
    console.log(`     LLVM IR: ${lit.map((l) => l.number).join(",")}`);
  });

  await step(page, "tab titles read the file's path with real slashes: crate/src/math.rs · PTX", async () => {
    // No look-alike of `/` (U+2215 and the like): the title is the path as typed.
    const all = (await groups(page)).flatMap((g) => g.tabs);
    const odd = all.filter((t) => /[\u2215\u2044\u29f8]/.test(t));
    if (odd.length) throw new Error(`titles with a look-alike slash: ${odd.join(", ")}`);
    await openFile(page, "crate/src/math.rs");
    await waitUntil("a tab titled crate/src/math.rs · PTX", async () =>
      (await groups(page)).some((g) => g.tabs.includes(title("crate/src/math.rs", "PTX"))), FIRST_COMPILE_MS);
    // The views took the focus for a moment following the file: a command typed before it
    // comes back would close.
    await page.waitForTimeout(1000);
    await focusBackIn(page, "math.rs");
  });

  await step(page, "Show PTX on three files in turn: one PTX tab, whose content follows the file", async () => {
    await runCommand(page, "View: Close All Editor Groups");
    await waitUntil("no editor open", async () => (await page.locator(".part.editor .tab").count()) === 0);
    const files = [
      ["saxpy.rs", "saxpy"],
      ["vector_add.rs", "vector_add"],
      ["elementwise_mul.rs", "elementwise_mul"],
    ];
    for (const [file, kernel] of files) {
      await openFile(page, file);
      // An open PTX view follows the file by itself (and takes the focus for a moment).
      if ((await groups(page)).some((g) => g.tabs.some((t) => t.endsWith("· PTX")))) {
        await waitUntil(`the PTX view to follow to ${file}`, async () =>
          (await groups(page)).some((g) => g.tabs.includes(title(file, "PTX"))), FIRST_COMPILE_MS);
        await focusBackIn(page, file);
      }
      await focusEditor(page, file);
      await runCommand(page, "kernelscope: Show PTX");
      // The command gives the focus back to the file once its view is shown: a Quick Open
      // typed before that would close.
      await page.waitForTimeout(1000);
      await focusBackIn(page, file);
      const ptx = title(file, "PTX");
      await waitUntil(`${kernel}'s PTX in the tab ${ptx}`, async () =>
        (await renderedLines(page, ptx)).some((l) => new RegExp(`\\.entry\\s+${kernel}\\b`).test(l.text)), FIRST_COMPILE_MS);
      const ptxTabs = (await groups(page)).flatMap((g) => g.tabs).filter((t) => t.endsWith("· PTX"));
      if (ptxTabs.length !== 1) throw new Error(`PTX tabs after ${file}: ${ptxTabs.join(", ")}`);
    }
    // Back in the first file, without a command: the one PTX tab follows.
    await openFile(page, "saxpy.rs");
    await waitUntil("the PTX tab to follow back to saxpy.rs", async () => {
      const ptxTabs = (await groups(page)).flatMap((g) => g.tabs).filter((t) => t.endsWith("· PTX"));
      return ptxTabs.length === 1 && ptxTabs[0] === title("saxpy.rs", "PTX") &&
        (await renderedLines(page, title("saxpy.rs", "PTX"))).some((l) => /\.entry\s+saxpy\b/.test(l.text));
    }, FIRST_COMPILE_MS).catch(async (error) => {
      throw new Error(`${error.message}: ${JSON.stringify((await groups(page)).map((g) => g.tabs))}`);
    });
    await focusBackIn(page, "saxpy.rs");
    await page.screenshot({ path: path.join(ARTIFACTS, "show-ptx-follows.png") });
  });

  await step(page, "closing the source closes its view; a compile ending after the close reopens nothing", async () => {
    // A save starts a compile (and asks for the on-save preview); the file closes at once.
    await focusEditor(page, "saxpy.rs");
    await page.keyboard.press("End");
    await page.keyboard.type(" // edited");
    await page.keyboard.press("Control+S");
    await runCommand(page, "View: Close All Editors in Group");
    const stageTabs = async () => (await groups(page)).flatMap((g) => g.tabs).filter((t) => / · /.test(t));
    await waitUntil("no stage tab left", async () => (await stageTabs()).length === 0, 10000).catch(async (error) => {
      throw new Error(`${error.message}: ${JSON.stringify((await groups(page)).map((g) => g.tabs))}`);
    });
    // Long enough for the compile to finish: nothing comes back, the status bar says nothing.
    await page.waitForTimeout(8000);
    if ((await stageTabs()).length) throw new Error(`a stage tab came back: ${(await stageTabs()).join(", ")}`);
    // (A save's "what changed" message may still show for a while: it names the file.)
    const status = page.locator(".statusbar-item", { hasText: /kernelscope.*(coming|compiling|\d+ ms)/ });
    for (const item of await status.all()) {
      if (await item.isVisible()) throw new Error(`the status bar still says ${(await item.textContent())?.trim()}`);
    }
  });

  await step(page, "the extension host log shows no kernelscope errors", () => noExtensionHostErrors(USER_DATA));
});
