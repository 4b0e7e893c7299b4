// End-to-end test of what each line costs and where a value comes from, in a real VS Code
// (code-server in headless Chromium): "Show What Each Line Costs" lists the kernel's register
// peak and the lines to look at first, and picking one moves the cursor there; in the SASS
// view, Go to Definition (F12) on the register an FFMA reads jumps to the load that wrote it.
//
// Environment: as e2e.mjs (run.sh sets it).

import {
  focusEditor,
  group,
  noExtensionHostErrors,
  openAndCompile,
  quickInput,
  renderedLines,
  runCommand,
  runSteps,
  step,
  STEP_MS,
  viewTitle,
  waitUntil,
} from "./page.mjs";

const URL = process.env.KS_URL;
const USER_DATA = process.env.KS_USER_DATA;
const FIRST_COMPILE_MS = Number(process.env.KS_TIMEOUT_MS ?? 240000);
const SASS = viewTitle("saxpy.rs", "SASS");

/** The cursor's line (1-based) as the status bar gives it ("Ln 71, Col 15"). */
async function cursorLine(page) {
  const where = (await page.locator(".statusbar-item", { hasText: /Ln \d+, Col \d+/ }).first().textContent()) ?? "";
  return Number(where.match(/Ln (\d+)/)?.[1]);
}

/** The rendered text of line `number` of the editor `title`, or undefined. */
async function lineText(page, title, number) {
  return (await renderedLines(page, title)).find((l) => l.number === number)?.text;
}

runSteps(async (page) => {
  await step(page, "saxpy.rs compiles", async () => {
    await openAndCompile(page, URL, "saxpy.rs", FIRST_COMPILE_MS);
  });

  await step(page, "Show What Each Line Costs lists the register peak and the lines to look at first", async () => {
    await runCommand(page, "kernelscope: Show What Each Line Costs");
    const rows = page.locator(".quick-input-widget .monaco-list-row");
    await rows.filter({ hasText: "saxpy" }).first().waitFor({ timeout: STEP_MS });
    const texts = await rows.allTextContents();
    if (!texts.some((t) => t.includes("saxpy") && /\d+ registers → \d+%/.test(t) && /the peak is \d+ live/.test(t)))
      throw new Error(`no kernel row with its registers, occupancy and peak: ${JSON.stringify(texts)}`);
    const look = texts.find((t) => /^line \d+/.test(t.trim()));
    if (!look) throw new Error(`no line to look at first: ${JSON.stringify(texts)}`);
    const line = Number(look.trim().match(/^line (\d+)/)[1]);
    await quickInput(page).fill(`line ${line}`);
    await rows.filter({ hasText: `line ${line}` }).first().waitFor();
    await page.keyboard.press("Enter");
    await waitUntil(`the cursor on line ${line}`, async () => (await cursorLine(page)) === line);
  });

  await step(page, "Go to Definition on the register an FFMA reads jumps to the load that wrote it", async () => {
    await runCommand(page, "kernelscope: Show SASS");
    await waitUntil("the SASS view with an FFMA", async () => (await renderedLines(page, SASS).catch(() => [])).length > 0, FIRST_COMPILE_MS);
    await focusEditor(page, SASS);
    await page.keyboard.press("Control+Home");
    // The FFMA's second operand, found by the find widget as a regular expression: the cursor
    // ends on that register.
    await page.keyboard.press("Control+F");
    const find = group(page, SASS).locator(".find-widget");
    await find.waitFor({ state: "visible" });
    if ((await find.locator(".codicon-regex[aria-checked='true']").count()) === 0) await page.keyboard.press("Alt+R");
    await page.keyboard.press("Control+A");
    await page.keyboard.type("(?<=FFMA R\\d+, )R\\d+");
    await waitUntil("a match of the FFMA's operand", async () => /\d+ of \d+/.test((await find.locator(".matchesCount").textContent()) ?? ""));
    await page.keyboard.press("Escape");
    const ffma = await waitUntil("the cursor on the FFMA", async () => {
      const n = await cursorLine(page);
      const text = await lineText(page, SASS, n);
      return text?.includes("FFMA") && { n, text };
    });
    await page.keyboard.press("F12");
    const load = await waitUntil("the cursor on the load that wrote it", async () => {
      const n = await cursorLine(page);
      const text = await lineText(page, SASS, n);
      return n !== ffma.n && text?.includes("LDG") && { n, text };
    });
    console.log(`     ${ffma.text.trim()} -> ${load.text.trim()}`);
  });

  await step(page, "no extension host errors", async () => {
    noExtensionHostErrors(USER_DATA);
  });
});
