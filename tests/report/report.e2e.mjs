// The page of `kernelscope report` in headless Chromium, as a reviewer uses it: click a
// source line and its instructions light up in every stage (exactly the lines explain --json
// maps it to); click an instruction and its source line lights up. The stages show the
// editors' filtered view until "every line" is ticked, and the links hold in both. The source
// lines' counts are the language server's inlay hints' (`kernelscope lsp`, asked here with
// the same filters), under the editors' default filters and after the filter bar changes
// them in every pane; a reload keeps the filters. Screenshots of each step go to
// tests/e2e-artifacts/report/, and each is compared with the one before (a click must change
// what is seen). With --baseline and --profile-result: deltas and heat; a kernel with a
// warning: the warning at its line. Prints one ok/not ok line per check and `N passed, N failed`.
import { chromium } from "playwright-core";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
const KERNELSCOPE = process.env.KERNELSCOPE_BIN ?? path.join(ROOT, "build/server/kernelscope");
const CHROMIUM = process.env.KS_CHROMIUM ?? "/usr/lib/chromium/chromium";
const ARTIFACTS = path.join(ROOT, "tests/e2e-artifacts/report");
let passed = 0, failed = 0;
const check = (name, ok, detail) => {
  if (ok) { passed++; console.log(`ok - ${name}`); }
  else { failed++; console.log(`not ok - ${name}${detail !== undefined ? ": " + detail : ""}`); }
  return ok;
};

// A language server over stdio, asked as an editor asks it.
const startServer = (options) => {
  const child = spawn(KERNELSCOPE, ["lsp"], { stdio: ["pipe", "pipe", "ignore"] });
  let buffer = Buffer.alloc(0), nextId = 1;
  const waiting = new Map();
  child.stdout.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())[1]);
      if (buffer.length < end + 4 + length) return;
      const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString());
      buffer = buffer.subarray(end + 4 + length);
      if (message.id !== undefined && message.method) {  // the server's own requests
        send({ jsonrpc: "2.0", id: message.id, result: null });
      } else if (message.id !== undefined && waiting.has(message.id)) {
        const { resolve, reject } = waiting.get(message.id);
        waiting.delete(message.id);
        if (message.error) reject(new Error(JSON.stringify(message.error)));
        else resolve(message.result);
      }
    }
  });
  const send = (message) => {
    const body = Buffer.from(JSON.stringify(message));
    child.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    child.stdin.write(body);
  };
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    waiting.set(id, { resolve, reject });
    send({ jsonrpc: "2.0", id, method, params });
  });
  const notify = (method, params) => send({ jsonrpc: "2.0", method, params });
  return { child, request, notify, start: request("initialize", { capabilities: {}, initializationOptions: options })
    .then(() => notify("initialized", {})) };
};
// The counts of a hint or a count of the page: { stage: lines }, and whether marked inlined.
const parseCounts = (label) => {
  const out = {};
  for (const m of (label || "").matchAll(/(\d+) (mir|llvm-ir|ptx|sass)\b/g)) out[m[2]] = Number(m[1]);
  return JSON.stringify({ counts: out, inlined: (label || "").includes("(inlined)") });
};

const work = fs.mkdtempSync(path.join(os.tmpdir(), "kernelscope-report-"));
fs.mkdirSync(ARTIFACTS, { recursive: true });
let browser, server;
try {
  const kernel = path.join(ROOT, "examples/saxpy.rs");
  const page = path.join(work, "saxpy.html");
  execFileSync(KERNELSCOPE, ["report", kernel, "-o", page], { stdio: ["ignore", "pipe", "inherit"] });
  const explain = JSON.parse(execFileSync(KERNELSCOPE, ["explain", kernel, "--json"], { maxBuffer: 1 << 28 }));
  const source = fs.readFileSync(kernel, "utf8").split("\n");
  const saxpyLine = source.findIndex((l) => l.includes("*y.add(i) = a * *x.add(i) + *y.add(i);")) + 1;
  const expected = explain.lines.find((l) => l.line === saxpyLine).stages;
  // explain --json counts a stage's lines from 1; the page's rows (data-index) from 0.
  const rowsOf = (stage) => (expected[stage] || []).map((i) => i.line - 1).sort((a, b) => a - b);
  check("the page is one file that fetches nothing",
    !/(src|href)=["']?https?:/.test(fs.readFileSync(page, "utf8")));

  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  const tab = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  const requests = [];
  tab.on("request", (r) => { if (!r.url().startsWith("file:")) requests.push(r.url()); });
  const errors = [];
  tab.on("pageerror", (e) => errors.push(String(e)));
  await tab.goto("file://" + page);
  const shots = [];
  const shot = async (name) => {
    const png = await tab.screenshot({ path: path.join(ARTIFACTS, name + ".png") });
    shots.push(png);
    return png;
  };
  await shot("1-opened");
  const stages = await tab.$$eval("section.pane", (panes) => panes.map((p) => p.dataset.stage));
  check("source, MIR, LLVM IR, PTX and SASS side by side",
    JSON.stringify(stages) === JSON.stringify(["source", "mir", "llvm-ir", "ptx", "sass"]), stages);
  check("the kernels table lists saxpy with its registers",
    (await tab.textContent("#kernels")).includes("saxpy"));

  // A source line: its instructions light up, exactly, in every stage.
  const selected = (stage) => tab.$$eval(`section[data-stage="${stage}"] .line.sel`,
    (rows) => rows.map((r) => Number(r.dataset.index)));
  await tab.click(`section[data-stage="source"] .line[data-index="${saxpyLine - 1}"]`);
  await shot("2-source-line");
  check("a click changes what is seen", !shots[1].equals(shots[0]));
  for (const stage of ["ptx", "sass", "llvm-ir"]) {
    const want = rowsOf(stage);
    const got = (await selected(stage)).sort((a, b) => a - b);
    check(`the SAXPY line lights exactly its ${stage} lines`,
      want.length > 0 && JSON.stringify(got) === JSON.stringify(want), `want ${want}, got ${got}`);
  }
  // The rows lit are the instructions explain names, text and all (explain squeezes blanks).
  for (const stage of ["ptx", "sass"]) {
    const texts = await tab.$$eval(`section[data-stage="${stage}"] .line.sel`,
      (rows) => rows.map((r) => r.lastChild.textContent.trim().replace(/\s+/g, " ")));
    const want = expected[stage].map((i) => i.text);
    check(`the ${stage} rows lit are explain's instructions`,
      JSON.stringify(texts) === JSON.stringify(want), `want ${JSON.stringify(want)}, got ${JSON.stringify(texts)}`);
  }
  const background = await tab.$eval(`section[data-stage="ptx"] .line.sel`,
    (r) => getComputedStyle(r).backgroundColor);
  check("lit lines are drawn highlighted", background === "rgb(255, 226, 138)", background);

  // An instruction: its source line lights up, and the rest of that line's code.
  const ptxLine = expected.ptx[0].line - 1;
  const sassLine = expected.sass[0].line - 1;
  await tab.click(`section[data-stage="ptx"] .line[data-index="${ptxLine}"]`);
  await shot("3-ptx-line");
  const src = await selected("source");
  check("a PTX instruction lights its source line", JSON.stringify(src) === JSON.stringify([saxpyLine - 1]), src);
  const related = await tab.$$eval(`section[data-stage="sass"] .line.rel`, (r) => r.length);
  check("and that line's SASS", related === expected.sass.length, related);
  check("the page made no network request", requests.length === 0, requests.join(", "));
  check("the page's script raised no error", errors.length === 0, errors.join("; "));

  // The filtered view, as the editors show it, and every line.
  const rowText = (stage, index) => tab.$eval(`section[data-stage="${stage}"] .line[data-index="${index}"]`,
    (r) => r.innerText);
  const visible = (stage, index) => tab.isVisible(`section[data-stage="${stage}"] .line[data-index="${index}"]`);
  const rawLines = (stage) => tab.$$eval(`section[data-stage="${stage}"] .line`,
    (rows) => rows.map((r) => r.lastChild.textContent));
  const ptxRaw = await rawLines("ptx");
  const sassRaw = await rawLines("sass");
  const loc = ptxRaw.findIndex((t) => t.trim().startsWith(".loc"));
  const sassComment = sassRaw.findIndex((t) => t.trim().startsWith("//"));
  check("the PTX has a .loc line and the SASS a comment line", loc >= 0 && sassComment >= 0, `${loc} ${sassComment}`);
  check("a PTX .loc line is hidden by default", !(await visible("ptx", loc)));
  check("a SASS comment line is hidden by default", !(await visible("sass", sassComment)));
  const compact = await rowText("sass", sassLine);
  check("SASS instructions are compacted as the editors show them",
    /^\d+\/\*[0-9a-f]{4}\*\/ \S/.test(compact) && !/\*\/\s{2,}/.test(compact), JSON.stringify(compact));
  const firstPtx = await tab.$eval(`section[data-stage="ptx"] .line:not(.filtered) .no`, (n) => n.textContent);
  check("line numbers count the view's lines", firstPtx === "1", firstPtx);
  const lit = async (stage) => {
    const want = rowsOf(stage);
    const got = (await selected(stage)).sort((a, b) => a - b);
    const seen = [];
    for (const i of got) if (await visible(stage, i)) seen.push(i);
    return { ok: want.length > 0 && JSON.stringify(got) === JSON.stringify(want) &&
      JSON.stringify(seen) === JSON.stringify(want), detail: `want ${want}, got ${got}, shown ${seen}` };
  };
  await tab.click(`section[data-stage="source"] .line[data-index="${saxpyLine - 1}"]`);
  for (const stage of ["ptx", "sass"]) {
    const r = await lit(stage);
    check(`filtered: the SAXPY line lights and shows exactly its ${stage} lines`, r.ok, r.detail);
  }
  await shot("5-filtered");
  for (const stage of ["mir", "llvm-ir", "ptx", "sass"]) {
    const box = `section[data-stage="${stage}"] input.every-line`;
    if (await tab.$(box)) await tab.click(box);
  }
  await shot("6-every-line");
  check("ticking every line changes what is seen", !shots[shots.length - 1].equals(shots[shots.length - 2]));
  check("the .loc line shows with every line", await visible("ptx", loc));
  check("and the SASS comment", await visible("sass", sassComment));
  const raw = await rowText("sass", sassLine);
  check("and the SASS instruction as nvdisasm wrote it", raw.endsWith(sassRaw[sassLine]), JSON.stringify(raw));
  const locNumber = await tab.$eval(`section[data-stage="ptx"] .line[data-index="${loc}"] .no`, (n) => n.textContent);
  check("line numbers count every line", locNumber === String(loc + 1), locNumber);
  for (const stage of ["ptx", "sass"]) {
    const r = await lit(stage);
    check(`every line: the selection stays on exactly the ${stage} lines`, r.ok, r.detail);
  }
  await tab.click(`section[data-stage="source"] .line[data-index="0"]`);
  await tab.click(`section[data-stage="source"] .line[data-index="${saxpyLine - 1}"]`);
  for (const stage of ["ptx", "sass"]) {
    const r = await lit(stage);
    check(`every line: the SAXPY line lights and shows exactly its ${stage} lines`, r.ok, r.detail);
  }
  await tab.click(`section[data-stage="sass"] .line[data-index="${sassLine}"]`);
  const back = await selected("source");
  check("every line: a SASS instruction lights its source line",
    JSON.stringify(back) === JSON.stringify([saxpyLine - 1]), back);
  check("the toggles raised no error", errors.length === 0, errors.join("; "));

  // The counts of the source lines: those of the language server's inlay hints, with the
  // hints' stages the page's and the views' filters the page's.
  server = startServer({ hoverStages: stages.slice(1) });
  await server.start;
  const uri = "file://" + kernel;
  server.notify("textDocument/didOpen",
    { textDocument: { uri, languageId: "rust", version: 1, text: source.join("\n") } });
  await server.request("kernelscope/sync", null);
  const hintsWith = async (filters) => {
    // The views are asked with these filters, as the editors ask them; the hints count so.
    await server.request("kernelscope/artifact", { textDocument: { uri }, stage: "ptx", filters });
    const hints = await server.request("textDocument/inlayHint", { textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: source.length, character: 0 } } });
    return new Map(hints.map((h) => [h.position.line, parseCounts(h.label)]));
  };
  const pageCounts = () => tab.$$eval(`section[data-stage="source"] .line`,
    (rows) => rows.map((r) => (r.querySelector(".count") || {}).textContent || ""));
  const agree = async (filters, what) => {
    const hints = await hintsWith(filters);
    const counts = await pageCounts();
    const differ = [];
    counts.forEach((text, line) => {
      const want = hints.get(line) ?? parseCounts("");
      if (parseCounts(text) !== want) differ.push(`line ${line + 1}: page "${text}", hint ${want}`);
    });
    check(`${what}: each source line's count is its inlay hint's`, differ.length === 0, differ.join("; "));
    return counts;
  };
  const filtersOf = (names) => Object.fromEntries(
    ["directives", "debugLocations", "unusedLabels", "comments", "libraryFunctions", "padding", "compactSass"]
      .map((n) => [n, names.includes(n)]));
  const defaults = filtersOf(["directives", "debugLocations", "unusedLabels", "comments", "libraryFunctions",
    "padding", "compactSass"]);
  // The panic handler's `loop {}`: no kernel calls it, so the views of LLVM IR, PTX and SASS
  // hide it (MIR names no kernels: its functions stay).
  const loopLine = source.findIndex((l) => l.trim() === "loop {}") + 1;
  const loopRows = (explain.lines.find((l) => l.line === loopLine) || { stages: {} }).stages.ptx || [];
  check("explain maps the panic handler's loop to PTX", loopRows.length > 0, loopLine);
  let counts = await agree(defaults, "default filters");
  const codeCounted = (text) => /llvm-ir|ptx|sass/.test(text);
  check("the loop, hidden in the views of its code, counts none of it",
    !codeCounted(counts[loopLine - 1]), counts[loopLine - 1]);
  const saxpyCount = counts[saxpyLine - 1];
  check("the SAXPY line counts its shown lines", /\d+ ptx · \d+ sass/.test(saxpyCount), saxpyCount);

  // The filter bar: library functions off, in every pane at once.
  const box = (name) => `#filters input[data-filter="${name}"]`;
  check("the filter bar offers the editors' filters, on as they start",
    (await tab.$$eval("#filters input[data-filter]", (b) => b.map((x) => x.dataset.filter + "=" + x.checked)))
      .join() === Object.keys(defaults).map((n) => n + "=true").join());
  for (const stage of ["mir", "llvm-ir", "ptx", "sass"]) {  // back to the panes' views
    const every = `section[data-stage="${stage}"] input.every-line`;
    if (await tab.isChecked(every)) await tab.click(every);
  }
  const ptxLoopRow = loopRows[0].line - 1;
  check("a row of the loop is hidden", !(await visible("ptx", ptxLoopRow)));
  await shot("7-filters-default");
  await tab.click(box("libraryFunctions"));
  await shot("8-library-functions-shown");
  check("unticking a filter changes what is seen", !shots[shots.length - 1].equals(shots[shots.length - 2]));
  check("the loop's PTX row shows", await visible("ptx", ptxLoopRow));
  const withLibrary = filtersOf(["directives", "debugLocations", "unusedLabels", "comments", "padding", "compactSass"]);
  counts = await agree(withLibrary, "library functions shown");
  check("the loop counts its code now", /\d+ ptx/.test(counts[loopLine - 1]), counts[loopLine - 1]);
  check("the filters are in the URL", new URL(tab.url()).hash ===
    "#filters=directives,debugLocations,unusedLabels,comments,padding,compactSass", tab.url());
  await tab.reload();
  check("a reload keeps them", !(await tab.isChecked(box("libraryFunctions"))) && await tab.isChecked(box("comments")) &&
    await visible("ptx", ptxLoopRow));
  counts = await agree(withLibrary, "after the reload");

  // The switch of every filter: some on, it turns them all on; then all off: every row of
  // every pane, and every mapped line counted.
  await tab.click("#all-filters");
  check("all on: as the editors start", new URL(tab.url()).hash === "#filters=" + Object.keys(defaults).join(","));
  counts = await agree(defaults, "all filters on");
  check("the loop counts none of its code again", !codeCounted(counts[loopLine - 1]), counts[loopLine - 1]);
  await tab.click("#all-filters");
  await shot("9-no-filters");
  const hiddenRows = await tab.$$eval(".line.filtered", (r) => r.length);
  check("with no filter, no row is hidden", hiddenRows === 0, hiddenRows);
  check("the .loc line shows", await visible("ptx", loc));
  counts = await agree(filtersOf([]), "no filters");
  const explainCount = (line, stage) => ((explain.lines.find((l) => l.line === line) || { stages: {} }).stages[stage] || [])
    .filter((i) => !i.inlined).length;
  check("the SAXPY line counts every line explain maps",
    counts[saxpyLine - 1].includes(`${explainCount(saxpyLine, "ptx")} ptx`), counts[saxpyLine - 1]);
  check("none on: the URL says so", new URL(tab.url()).hash === "#filters=", tab.url());
  check("the filter bar raised no error", errors.length === 0, errors.join("; "));

  // With a baseline and a recorded profile (the H200's, replayed): the kernels against the
  // baseline, and the heat on the hot line and on what it became.
  const baseline = path.join(work, "baseline.json");
  const saxpy = explain.kernels.find((k) => k.name === "saxpy");
  const registers = saxpy.registers;
  // As `check --bless` writes it, with two registers fewer than today.
  fs.writeFileSync(baseline, JSON.stringify({ "kernelscope-baseline": 1, arch: explain.arch, "opt-level": 3,
    kernels: { saxpy: { registers: registers - 2, "spill-bytes": 0, "local-memory": 0, stack: 0, "shared-memory": 0,
      instructions: saxpy.instructions.sass, occupancy: saxpy.occupancy.percent, "block-size": 256 } } }));
  const hotPage = path.join(work, "saxpy-profile.html");
  execFileSync(KERNELSCOPE, ["report", kernel, "-o", hotPage, "--baseline", baseline, "--profile-result",
    path.join(ROOT, "tests/golden/gpu/saxpy.profile.result")], { stdio: ["ignore", "pipe", "inherit"] });
  await tab.goto("file://" + hotPage);
  await shot("4-profile-and-baseline");
  const kernels = await tab.textContent("#kernels");
  check("the kernels table shows the registers against the baseline",
    kernels.includes(`${registers} (was ${registers - 2})`), kernels);
  const worse = await tab.$$eval("#kernels td.worse", (cells) => cells.map((c) => c.textContent));
  check("more registers than the baseline is marked worse, and nothing else changed",
    worse.length === 1 && worse[0].startsWith(String(registers)) && !kernels.includes("(was 0)"), worse);
  const hot = await tab.$eval(`section[data-stage="source"] .line[data-index="${saxpyLine - 1}"]`,
    (r) => ({ text: r.textContent, hot: r.classList.contains("hot"), bg: getComputedStyle(r).backgroundColor }));
  check("the hot line has the profile's heat and headline",
    hot.hot && hot.bg.startsWith("rgba(255, 69, 58") && hot.text.includes("stalls · long scoreboard"), JSON.stringify(hot));
  const hotSass = await tab.$$eval(`section[data-stage="sass"] .line.hot`, (r) => r.map((x) => Number(x.dataset.index)));
  check("and its SASS lines are coloured too",
    rowsOf("sass").every((i) => hotSass.includes(i)), `${hotSass} vs ${rowsOf("sass")}`);
  const cold = await tab.$eval(`section[data-stage="source"] .line[data-index="0"]`, (r) => r.classList.contains("hot"));
  check("a line without samples has no heat", !cold);
  check("the profiled page's script raised no error", errors.length === 0, errors.join("; "));

  // A kernel with a warning: the warning at its line, as the source pane numbers it.
  const warned = path.join(work, "warned.rs");
  const warnedSource = fs.readFileSync(kernel, "utf8").replace(
    /(\n\s*)(\*y\.add\(i\) = )/, "$1let unused_here = i + 1;$1$2");
  fs.writeFileSync(warned, warnedSource);
  const warnedLine = warnedSource.split("\n").findIndex((l) => l.includes("let unused_here")) + 1;
  const warnedPage = path.join(work, "warned.html");
  execFileSync(KERNELSCOPE, ["report", warned, "-o", warnedPage], { stdio: ["ignore", "pipe", "inherit"] });
  await tab.goto("file://" + warnedPage);
  const diagnostics = await tab.textContent("#diagnostics");
  check("a warning shows at its line", diagnostics.includes(`line ${warnedLine}: warning: unused variable`),
    JSON.stringify(diagnostics));
} catch (e) {
  check("the test ran to the end", false, e.stack);
} finally {
  if (browser) await browser.close();
  if (server) server.child.kill();
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
