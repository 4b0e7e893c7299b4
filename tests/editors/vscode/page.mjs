// What the VS Code end-to-end tests share: reading code-server's DOM as a user sees it,
// typing commands, and running named steps that each leave a screenshot when they fail.
//
// Environment: KS_ARTIFACTS (screenshots), KS_CHROMIUM.

import { chromium } from "playwright-core";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const ARTIFACTS = process.env.KS_ARTIFACTS;
const CHROMIUM = process.env.KS_CHROMIUM ?? "/usr/lib/chromium/chromium";
export const STEP_MS = 60000;
/** The filters of the stage views by default (`kernelscope.filters.*`, all on). */
export const DEFAULT_FILTERS = Object.freeze({
  directives: true,
  debugLocations: true,
  unusedLabels: true,
  comments: true,
  libraryFunctions: true,
  padding: true,
  compactSass: true,
});
/** PTX lines that are not instructions: directives such as `.loc`, labels, comments, blanks. */
export const NOT_AN_INSTRUCTION = /^\s*(\.\w+|\/\/.*|[$\w.]+:|[{}()]?)\s*$|^\s*\.loc\b/;

/** Loads code-server at `url`, opens `file` from the explorer and waits for its first compile. */
export async function openAndCompile(page, url, file, timeoutMs) {
  await page.goto(url);
  await page.locator(".monaco-workbench").waitFor({ timeout: STEP_MS });
  await page.locator(".explorer-folders-view .monaco-list-row", { hasText: file }).first().click();
  await page.locator(".tab.active", { hasText: file }).waitFor({ timeout: STEP_MS });
  await waitUntil("the status bar to say the file compiled", async () => /kernelscope\s*\d+\s*ms/.test(await statusText(page)), timeoutMs);
}

/** The 0-based number of the first line of `file` that contains `text`. */
export function lineOf(file, text) {
  const line = fs.readFileSync(file, "utf8").split("\n").findIndex((l) => l.includes(text));
  if (line < 0) throw new Error(`no line "${text}" in ${file}`);
  return line;
}

/** VS Code's quick input box (Quick Open, the Command Palette, Go to Line, pickers). */
export function quickInput(page) {
  return page.locator(".quick-input-widget .quick-input-box input");
}

/**
 * Opens a quick input with `key` (after `prepare`, when given) and types `text` into it. The
 * stage views follow the active file, and VS Code's `vscode.open` activates the group it
 * opens in for a moment, which closes an open quick input: then it is asked for again.
 */
export async function typeInQuickInput(page, key, text, prepare = async () => {}) {
  const input = quickInput(page);
  for (let attempt = 1; ; attempt++) {
    await prepare();
    await page.keyboard.press(key);
    try {
      await input.waitFor({ state: "visible", timeout: 5000 });
      await input.fill(text, { timeout: 5000 });
      return input;
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}

/**
 * Opens a file of the workspace by its path, through Quick Open, waits for its tab and keeps
 * it (not a preview tab, which the next file opened would replace). Quick Open closes when
 * the editor takes the focus back, as it does when a code action finishes applying; its list
 * then stays in the DOM, hidden, and Enter would type a newline into the file: so it is
 * checked visible with the file first right before Enter, and opened again otherwise.
 */
export async function openFile(page, relative) {
  const name = path.basename(relative);
  const widget = page.locator(".quick-input-widget");
  const tab = page.locator(".tab.active", { hasText: name }).first();
  for (let attempt = 1; ; attempt++) {
    await typeInQuickInput(page, "Control+P", relative);
    // The list filters as it is typed: wait until the first row is the file itself.
    const first = widget.locator(".monaco-list-row").first();
    const listed = await waitUntil(`Quick Open to list ${relative} first`, async () =>
      (await widget.isVisible()) && ((await first.locator(".label-name").first().textContent()) ?? "").trim() === name,
      10000).then(() => true, () => false);
    if (listed && (await widget.isVisible())) {
      await page.keyboard.press("Enter");
      if (await tab.waitFor({ timeout: 10000 }).then(() => true, () => false)) break;
    }
    if (attempt >= 3) await tab.waitFor({ timeout: STEP_MS });
    if (await widget.isVisible()) await page.keyboard.press("Escape");
  }
  // A preview tab is in italics; kept, it is not (best effort: the tiles may hold the focus).
  const preview = () => tab.evaluate((el) => el.classList.contains("italic"));
  if (await preview()) {
    await runCommand(page, "View: Keep Editor");
    await waitUntil(`${name} kept`, async () => !(await preview()), 10000).catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------
// Reading VS Code's DOM.

/** The tab title of a stage view: the source's path in the workspace and the stage. */
export function viewTitle(relative, stage) {
  return `${relative} · ${stage}`;
}

/** The title of the tab that has the focus (the active tab of the active group). */
export async function focusedTab(page) {
  return ((await page.locator(".editor-group-container.active .tab.active .label-name").first().textContent()) ?? "").trim();
}

/**
 * Waits until the focus is in the tab `title`: a stage command gives it back to the source
 * once its view has opened (VS Code's `vscode.open` takes it for a moment).
 */
export async function focusBackIn(page, title) {
  await waitUntil(`the focus back in ${title}`, async () => (await focusedTab(page)) === title, 10000).catch(async (error) => {
    throw new Error(`${error.message}: it is in ${await focusedTab(page)}`);
  });
}

/** The editor groups left to right: position, width and the titles of their tabs. */
export async function editorGroups(page) {
  const out = [];
  for (const g of await page.locator(".part.editor .editor-group-container").all()) {
    const box = await g.boundingBox();
    if (!box || box.width < 10) continue;
    const tabs = (await g.locator(".tab .label-name").allTextContents()).map((t) => t.trim());
    // allTextContents does not wait: an empty group (every editor closed) has no active tab,
    // and textContent() would wait Playwright's 30 s for one.
    const active = (await g.locator(".tab.active .label-name").allTextContents())[0]?.trim() ?? "";
    out.push({ x: box.x, y: box.y, width: box.width, tabs, active });
  }
  return out.sort((a, b) => a.x - b.x);
}

/** The editor group whose active tab is `title`. */
export function group(page, title) {
  return page.locator(".part.editor .editor-group-container").filter({
    has: page.locator(".tab.active", { hasText: title }),
  });
}

/**
 * The rendered lines of the editor in a group: number, text (inlay hints included), whether
 * an extension decoration paints its background (linked highlighting), and those colours.
 */
export async function renderedLines(page, title) {
  const editor = group(page, title).locator(".monaco-editor").first();
  return editor.evaluate((root) => {
    const byTop = new Map();
    for (const el of root.querySelectorAll(".margin-view-overlays > div")) {
      const number = el.querySelector(".line-numbers");
      if (number) byTop.set(el.style.top, { number: Number(number.textContent), text: "", highlighted: false, backgrounds: [] });
    }
    for (const el of root.querySelectorAll(".view-lines > .view-line")) {
      const line = byTop.get(el.style.top);
      if (line) line.text = el.textContent.replace(/\u00a0/g, " ");
    }
    for (const el of root.querySelectorAll(".view-overlays > div")) {
      const line = byTop.get(el.style.top);
      if (!line) continue;
      for (const deco of el.querySelectorAll("[class*='ced-']")) {
        const bg = getComputedStyle(deco).backgroundColor;
        if (bg && bg !== "transparent" && bg !== "rgba(0, 0, 0, 0)") {
          line.highlighted = true;
          line.backgrounds.push(bg);
        }
      }
    }
    return [...byTop.values()].sort((a, b) => a.number - b.number);
  });
}

/** Whether the editors' background is dark (whatever classes the workbench carries). */
export async function editorIsDark(page) {
  return page.locator(".part.editor .monaco-editor-background").first().evaluate((el) => {
    const [r, g, b] = getComputedStyle(el).backgroundColor.match(/\d+/g).map(Number);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 128;
  });
}

/**
 * The bars an extension decoration draws at the left of the rendered lines of the editor in
 * a group (the inlined lines' mark): line number, the border's style, width and colour, the
 * editor's background, and their contrast ratio (WCAG), the colour laid over the background.
 */
export async function leftBars(page, title) {
  const editor = group(page, title).locator(".monaco-editor").first();
  return editor.evaluate((root) => {
    const rgba = (css) => {
      const [r, g, b, a = 1] = css.match(/[\d.]+/g).map(Number);
      return { r, g, b, a };
    };
    const over = (c, under) => ({ r: c.r * c.a + under.r * (1 - c.a), g: c.g * c.a + under.g * (1 - c.a), b: c.b * c.a + under.b * (1 - c.a) });
    const luminance = ({ r, g, b }) => {
      const channel = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const backgroundCss = getComputedStyle(root.querySelector(".monaco-editor-background")).backgroundColor;
    const background = rgba(backgroundCss);
    const numbers = new Map();
    for (const el of root.querySelectorAll(".margin-view-overlays > div")) {
      const number = el.querySelector(".line-numbers");
      if (number) numbers.set(el.style.top, Number(number.textContent));
    }
    const out = [];
    for (const el of root.querySelectorAll(".view-overlays > div")) {
      for (const deco of el.querySelectorAll("[class*='ced-']")) {
        const style = getComputedStyle(deco);
        const width = parseFloat(style.borderLeftWidth);
        if (!(width > 0) || style.borderLeftStyle === "none") continue;
        const [a, b] = [luminance(over(rgba(style.borderLeftColor), background)), luminance(background)];
        out.push({
          number: numbers.get(el.style.top),
          style: style.borderLeftStyle,
          width,
          color: style.borderLeftColor,
          background: backgroundCss,
          contrast: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
        });
      }
    }
    return out;
  });
}

export async function waitUntil(what, fn, timeoutMs = STEP_MS) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ""}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function runCommand(page, title) {
  for (let attempt = 1; ; attempt++) {
    const input = await typeInQuickInput(page, "F1", `>${title}`);
    await page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).first().waitFor();
    // A stage view that follows the newly active file can close the palette (VS Code's
    // `vscode.open` activates the group it opens in); Enter would then go to the editor and
    // type a line break into the file, so it is pressed only while the palette is there.
    if (await input.isVisible()) {
      await page.keyboard.press("Enter");
      return;
    }
    if (attempt >= 3) throw new Error(`the Command Palette closed before '${title}' could run`);
  }
}

/** Picks `label` in kernelscope's Select Target GPU Architecture, from the editor of `title`. */
export async function pickArch(page, title, label) {
  await focusEditor(page, title);
  await runCommand(page, "kernelscope: Select Target GPU Architecture");
  await quickInput(page).fill(label);
  await page.locator(".quick-input-widget .monaco-list-row", { hasText: label }).first().waitFor();
  await page.keyboard.press("Enter");
}

/** Whether the keyboard focus is in the text of the editor in the group of tab `title`. */
export async function editorHasFocus(page, title) {
  return group(page, title).locator(".editor-instance .monaco-editor.focused").first().isVisible().catch(() => false);
}

/**
 * Focuses the editor in a group: its tab, then a click on its first visible line (the text
 * layer itself may be scrolled far out of the viewport); returns once the keyboard focus is
 * in that editor's text. Under load a stage view that follows the file can take the focus
 * for a moment after the click: then it is clicked again, so that what is typed next goes
 * to this editor.
 */
export async function focusEditor(page, title) {
  for (let attempt = 1; ; attempt++) {
    // Its tab first, as a user picks an editor; then a click in its text (the cursor to line
    // 1, keyboard focus in the text) where nothing lies over it: a find widget or a hover
    // over the text would take that click and leave the focus elsewhere.
    const tab = group(page, title).locator(".tab.active").first();
    await tab.waitFor({ timeout: STEP_MS });
    await tab.click();
    const viewport = group(page, title).locator(".editor-instance .monaco-editor .overflow-guard").first();
    const box = await viewport.boundingBox();
    if (!box) throw new Error(`no visible editor for ${title}`);
    for (const x of [box.x + box.width - 40, box.x + box.width / 2, box.x + 80]) {
      const free = await page.evaluate(([px, py]) => !!document.elementFromPoint(px, py)?.closest(".view-lines, .view-overlays, .lines-content"), [x, box.y + 8]);
      if (!free) continue;
      await page.mouse.click(x, box.y + 8);
      break;
    }
    const focused = await waitUntil(`the focus in the text of ${title}`, async () =>
      (await editorHasFocus(page, title)) && (await focusedTab(page)) === title, 5000).then(() => true, () => false);
    if (focused) return;
    if (attempt >= 3) throw new Error(`the focus did not stay in ${title}: it is in ${await focusedTab(page)}`);
  }
}

/** The cursor's line and column (1-based) as the status bar shows them, or null. */
export async function cursorPosition(page) {
  const items = await page.locator(".statusbar-item", { hasText: /Ln \d+, Col \d+/ }).allTextContents();
  const m = /Ln (\d+), Col (\d+)/.exec(items[0] ?? "");
  return m ? { line: Number(m[1]), column: Number(m[2]) } : null;
}

/**
 * Moves the cursor of `title` to the start of line `line1` with Go to Line (Ctrl+G), and
 * checks that it got there: under load the widget can take Enter before it has read the
 * number (the cursor then stays on the line it previewed), so it is asked again.
 */
export async function goToLine(page, title, line1) {
  for (let attempt = 1; ; attempt++) {
    const input = await typeInQuickInput(page, "Control+G", `:${line1}`, () => focusEditor(page, title));
    await page.keyboard.press("Enter");
    await input.waitFor({ state: "hidden" });
    const there = await waitUntil(`the cursor on line ${line1}`, async () => (await cursorPosition(page))?.line === line1, 3000)
      .then(() => true, () => false);
    if (there) return;
    if (attempt >= 3) throw new Error(`Go to Line ${line1} left the cursor at ${JSON.stringify(await cursorPosition(page))}`);
  }
}

/**
 * Opens the quick-fix menu at the cursor (Ctrl+.) and applies the action whose text matches
 * `title` with the keyboard, as the menu asks ("Enter to Apply"). VS Code asks for the actions
 * once per Ctrl+.: a request answered while the file's compile is still landing shows "No code
 * actions available", so the menu is closed and asked again, as a user would, until the step's
 * time runs out.
 */
export async function applyQuickFix(page, title) {
  const action = page.locator(".action-widget .monaco-list-row", { hasText: title }).first();
  await waitUntil(`the quick fix ${title}`, async () => {
    await page.keyboard.press("Control+.");
    if (await action.waitFor({ timeout: 10000 }).then(() => true, () => false)) return true;
    await page.keyboard.press("Escape");
    return false;
  });
  console.log(`     ${((await action.textContent()) ?? "").trim()}`);
  for (let i = 0; i < 5 && !(await action.evaluate((el) => el.classList.contains("focused"))); ++i) {
    await page.keyboard.press("ArrowDown");
  }
  await page.keyboard.press("Enter");
}

export async function statusText(page) {
  return (await page.locator(".statusbar-item", { hasText: "kernelscope" }).first().textContent()) ?? "";
}

// ---------------------------------------------------------------------------------------
// Steps and the browser.

export const results = [];

export async function step(page, name, fn) {
  const started = Date.now();
  try {
    await fn();
    results.push({ name, ok: true, ms: Date.now() - started });
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    results.push({ name, ok: false, ms: Date.now() - started });
    console.log(`FAIL ${name} (${Date.now() - started} ms)\n     ${error.message.split("\n").join("\n     ")}`);
    const file = path.join(ARTIFACTS, `fail-${results.length}-${name.replace(/\W+/g, "-")}.png`);
    await page.screenshot({ path: file }).catch(() => undefined);
  }
}

/** The lines the extension wrote to its output channel "kernelscope", as VS Code logged them. */
export function outputChannel(userData) {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (/kernelscope\.log$/.test(entry.name)) found.push(fs.readFileSync(p, "utf8"));
    }
  };
  walk(path.join(userData, "logs"));
  return found.join("\n");
}

/** Throws the kernelscope errors of the extension host logs under `userData`, if any. */
export function noExtensionHostErrors(userData) {
  const logs = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (/exthost.*\.log$|remoteexthost\.log$/.test(entry.name)) logs.push(p);
    }
  };
  walk(path.join(userData, "logs"));
  if (logs.length === 0) throw new Error(`no extension host log under ${userData}/logs`);
  // An entry is a timestamped line and its continuation lines (a stack trace). Once the
  // window is gone ("Extension host terminating"), a request VS Code made as it closed may
  // still fail inside vscode-languageclient as the client stops: nobody sees those.
  const entries = logs.flatMap((f) => {
    const all = fs.readFileSync(f, "utf8").split(/\n(?=\d{4}-\d\d-\d\d )/);
    const end = all.findIndex((e) => /Extension host terminating/.test(e));
    return end < 0 ? all : all.slice(0, end);
  });
  const errors = entries.filter((e) => /^\S+ \S+ \[error\]/.test(e) && /kernelscope/i.test(e));
  if (errors.length) throw new Error(errors.slice(0, 5).join("\n"));
}

/**
 * Opens headless Chromium on a fresh profile, runs `body(page)`, closes it, prints
 * `N passed, N failed` and exits with the verdict.
 */
export async function runSteps(body) {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "kernelscope-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1600, height: 1000 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  try {
    await body(page);
  } catch (error) {
    console.error(error);
    results.push({ name: "the steps ran to the end", ok: false });
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  const passed = results.filter((r) => r.ok).length;
  console.log(`${passed} passed, ${results.length - passed} failed`);
  process.exit(passed === results.length ? 0 : 1);
}
