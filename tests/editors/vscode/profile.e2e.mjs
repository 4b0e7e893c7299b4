// End-to-end test of Profile in a real VS Code (code-server in headless Chromium): the
// Profile code lens on saxpy runs `kernelscope/profile` through the kernelscope.gpu.runner
// setting, which run.sh points at tests/gpu/fake/fake-gpu-runner.py answering with a profile
// recorded on an H200. The progress notification shows, the hot line gets the server's inlay
// hint and a heat colour, so do the PTX lines it became; typing in the file clears them.
// Then the coalescing fix of tests/fixtures/gpu/coalesce, profiled before and after the edit
// (the runner's recorded result swapped in between): the second profile's hint says the load
// and store line stalls 75% less since the last profile, and Toggle Profile Delta Heat colours
// it as better.
//
// Environment: as e2e.mjs (run.sh sets it), and KS_ROOT (the checkout) and KS_PROFILE_RESULT
// (the recorded result the runner answers with).

import * as fs from "node:fs";
import * as path from "node:path";
import { goToLine, group, lineOf, noExtensionHostErrors, openAndCompile, openFile, renderedLines, runCommand, runSteps, statusText, step, STEP_MS, typeInQuickInput, waitUntil } from "./page.mjs";

const URL = process.env.KS_URL;
const WORKSPACE = process.env.KS_WORKSPACE;
const USER_DATA = process.env.KS_USER_DATA;
const ARTIFACTS = process.env.KS_ARTIFACTS;
const FIRST_COMPILE_MS = Number(process.env.KS_TIMEOUT_MS ?? 240000);
const SAXPY_LINE = lineOf(path.join(WORKSPACE, "saxpy.rs"), "*y.add(i) = a * *x.add(i) + *y.add(i);");
const HINT = "90% stalls · long scoreboard";
const PTX = "saxpy.rs · PTX";
const ROOT = process.env.KS_ROOT;
const PROFILE_RESULT = process.env.KS_PROFILE_RESULT;
const COALESCE = path.join(ROOT, "tests/fixtures/gpu/coalesce");
const SCALE = path.join(WORKSPACE, "scale.rs");
const STORE = "*out.add(at) = 2.0 * *a.add(at);";
const DELTA_HINT = "\u221275% stalls since last profile";

/** The runner answers the next profile with the H200's recorded `name`. */
function recordedProfile(name) {
  fs.copyFileSync(path.join(ROOT, "tests/golden/gpu", name), PROFILE_RESULT);
}

/** Clicks the Profile lens of the editor `title` (the cursor first off the kernel). */
async function clickProfileLens(page, title) {
  await goToLine(page, title, 1);
  const lens = group(page, title).locator(".codelens-decoration a", { hasText: /^Profile$/ }).first();
  await lens.waitFor({ timeout: STEP_MS });
  await lens.click();
}

/** The rendered lines of a group's editor, each with whether a heat colour, rgba(255, 69, 58, a), paints it. */
async function heatLines(page, title) {
  return (await renderedLines(page, title)).map((l) => ({ ...l, heat: l.backgrounds.some((bg) => bg.startsWith("rgba(255, 69, 58")) }));
}

/** Whether the Command Palette offers a command titled `title` (then closed again). */
async function paletteOffers(page, title) {
  const input = await typeInQuickInput(page, "F1", `>${title}`);
  await page.waitForTimeout(500);  // the list follows the typed text
  const offered = (await page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).count()) > 0;
  if (await input.isVisible()) await page.keyboard.press("Escape");
  return offered;
}

runSteps(async (page) => {
  await step(page, "VS Code loads, saxpy.rs compiles, its PTX is beside it", async () => {
    await openAndCompile(page, URL, "saxpy.rs", FIRST_COMPILE_MS);
    await runCommand(page, "kernelscope: Open Stages Side by Side");
    await waitUntil("saxpy's PTX", async () => (await heatLines(page, PTX)).some((l) => /\.entry\s+saxpy\b/.test(l.text)), FIRST_COMPILE_MS);
  });

  await step(page, "Clear Profile is not offered while no profile is shown", async () => {
    if (await paletteOffers(page, "kernelscope: Clear Profile")) throw new Error("Clear Profile is offered with no profile");
  });

  await step(page, "the Profile lens profiles saxpy, with progress in a notification", async () => {
    // The cursor off the kernel, so that linked highlighting paints nothing.
    await goToLine(page, "saxpy.rs", 1);
    const lens = group(page, "saxpy.rs").locator(".codelens-decoration a", { hasText: /^Profile$/ }).first();
    await lens.waitFor({ timeout: STEP_MS });
    if ((await group(page, "saxpy.rs").locator(".codelens-decoration a", { hasText: /Run$/ }).count()) === 0)
      throw new Error("no ▶ Run lens beside Profile");
    await lens.click();
    const note = await waitUntil("a notification saying what is profiled", async () => {
      const texts = await page.locator(".notifications-toasts .notification-list-item").allTextContents();
      return texts.find((t) => t.includes("Profiling saxpy"));
    });
    console.log(`     ${note.trim().slice(0, 120)}`);
  });

  await step(page, "the hot line gets the hint and the heat colour", async () => {
    let seen;  // what the line showed last, for the failure message
    const line = await waitUntil(`"${HINT}" on line ${SAXPY_LINE + 1}`, async () => {
      const l = (await heatLines(page, "saxpy.rs")).find((x) => x.number === SAXPY_LINE + 1);
      seen = l && `${JSON.stringify(l.text)}${l.heat ? " (heat)" : ""}`;
      return l && l.text.includes(HINT) && l.heat && l;
    }, FIRST_COMPILE_MS).catch((e) => { throw new Error(`${e.message}; the line shows ${seen}`); });
    console.log(`     ${line.text.trim()}`);
    const comment = (await heatLines(page, "saxpy.rs")).find((x) => x.number === 1);
    if (comment?.heat) throw new Error("line 1 (no code) has a heat colour");
  });

  await step(page, "with a profile shown, Clear Profile is offered", async () => {
    if (!(await paletteOffers(page, "kernelscope: Clear Profile"))) throw new Error("Clear Profile is not offered");
  });

  await step(page, "the PTX lines of the hot line are coloured too", async () => {
    // The cursor on the hot line scrolls the PTX to what it became (linked highlighting).
    await goToLine(page, "saxpy.rs", SAXPY_LINE + 1);
    const hot = await waitUntil("heat-coloured loads and stores of the hot line in the PTX", async () => {
      const ls = (await heatLines(page, PTX)).filter((l) => l.heat);
      return ls.some((l) => /ld\.global|st\.global/.test(l.text)) && ls;
    });
    console.log(`     PTX lines ${hot.map((l) => l.number).join(",")}`);
    await page.screenshot({ path: path.join(ARTIFACTS, "profile.png") });
  });

  await step(page, "typing in the file clears the hint and the heat, source and PTX", async () => {
    await goToLine(page, "saxpy.rs", 1);
    await page.keyboard.press("End");
    await page.keyboard.type(" edited");
    await waitUntil("no heat in saxpy.rs or its PTX", async () =>
      !(await heatLines(page, "saxpy.rs")).some((l) => l.heat) && !(await heatLines(page, PTX)).some((l) => l.heat));
    await waitUntil("the hint gone", async () => !(await heatLines(page, "saxpy.rs")).some((l) => l.text.includes("stalls")));
  });

  await step(page, "scale.rs is profiled before its coalescing fix: no change to show yet", async () => {
    fs.copyFileSync(path.join(COALESCE, "before.rs"), SCALE);
    recordedProfile("scale_matrix_before.profile.result");
    await openFile(page, "scale.rs");
    await waitUntil("the status bar to say scale.rs compiled", async () => /kernelscope\s*\d+\s*ms/.test(await statusText(page)), FIRST_COMPILE_MS);
    await clickProfileLens(page, "scale.rs");
    const store = lineOf(SCALE, STORE) + 1;
    const line = await waitUntil(`the stall hint on line ${store}`, async () => {
      const l = (await heatLines(page, "scale.rs")).find((x) => x.number === store);
      return l && l.text.includes("stalls ·") && l.heat && l;
    }, FIRST_COMPILE_MS);
    if (line.text.includes("since last profile")) throw new Error(`a first profile shows a change: ${line.text}`);
    if (await paletteOffers(page, "kernelscope: Toggle Profile Delta Heat")) throw new Error("the delta heat is offered without an earlier profile");
  });

  await step(page, "the fix, profiled again: the load and store line stalls 75% less since the last profile", async () => {
    // The edit as a save from elsewhere would make it: VS Code reloads the unmodified file.
    fs.copyFileSync(path.join(COALESCE, "after.rs"), SCALE);
    const store = lineOf(SCALE, STORE) + 1;
    await waitUntil(`scale.rs reloaded, no heat left`, async () => {
      const ls = await heatLines(page, "scale.rs");
      return ls.find((x) => x.number === store)?.text.includes(STORE) && !ls.some((l) => l.heat);
    });
    recordedProfile("scale_matrix_after.profile.result");
    await clickProfileLens(page, "scale.rs");
    let seen;
    const line = await waitUntil(`"${DELTA_HINT}" on line ${store}`, async () => {
      const l = (await heatLines(page, "scale.rs")).find((x) => x.number === store);
      seen = l?.text;
      return l && l.text.includes(DELTA_HINT) && l;
    }, FIRST_COMPILE_MS).catch((e) => { throw new Error(`${e.message}; the line shows ${JSON.stringify(seen)}`); });
    console.log(`     ${line.text.trim()}`);
  });

  await step(page, "Toggle Profile Delta Heat colours the line that got better; again, the heat comes back", async () => {
    const store = lineOf(SCALE, STORE) + 1;
    const better = (l) => l.backgrounds.some((bg) => bg.startsWith("rgba(48, 209, 88"));
    await runCommand(page, "kernelscope: Toggle Profile Delta Heat");
    await waitUntil(`line ${store} coloured as better`, async () => {
      const l = (await heatLines(page, "scale.rs")).find((x) => x.number === store);
      return l && better(l) && !l.heat;
    });
    await page.screenshot({ path: path.join(ARTIFACTS, "profile-delta.png") });
    await runCommand(page, "kernelscope: Toggle Profile Delta Heat");
    await waitUntil(`line ${store} coloured by heat again`, async () => {
      const l = (await heatLines(page, "scale.rs")).find((x) => x.number === store);
      return l && l.heat && !better(l);
    });
  });

  await step(page, "the extension host log shows no kernelscope errors", () => noExtensionHostErrors(USER_DATA));
});
