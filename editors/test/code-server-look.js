// A look at ordering-lsp in a real VS Code workbench (code-server), as a user meets it: what the
// screen shows, with screenshots to look at. Run by code-server-look.sh (see its header).
// Usage: NODE_PATH=<playwright>/node_modules node code-server-look.js URL OUT_DIR SPEC.json
// SPEC is a list of steps, one per file (a step without "file" opens nothing: it waits, then
// shows the status bar and takes K-open.png, what a user sees before opening anything):
//   [{"file": "salt/web/init.sls",            // opened with Quick Open
//     "wait": 8000,                            // ms after the open before looking (default 8000)
//     "hovers": [[27, "/etc/nginx.conf"]],     // mouse hover over the text on that line
//     "links":  [[29, "salt://web/nginx.conf"]], // Ctrl+hover (the link's tooltip), Ctrl+click
//     "types":  [["32:20", "- sou"]],          // at line:col, End, Enter, type: the suggestions
//     "defs":   [[36, "nginx"]]}]              // click the text, F12: where the editor lands
// Prints what each step showed (status bar, hover text, suggestions, the tab and position
// reached, the Problems panel's first rows) and writes K-open.png, K-hoverN.png, K-linkN.png,
// K-typeN.png, K-defN.png and problems.png into OUT_DIR. Typing edits the buffer, never saves.
const { chromium } = require('playwright-core');
const { launch } = require('./chromium.js');
const path = require('path');
const fs = require('fs');
const [url, outDir, specFile] = process.argv.slice(2);
const spec = JSON.parse(fs.readFileSync(specFile, 'utf8'));
(async () => {
  const { browser, close } = await launch(chromium);
  const page = browser.pages()[0] || await browser.newPage();
  await page.setViewportSize({ width: 1400, height: 900 });
  const shot = (n) => page.screenshot({ path: path.join(outDir, n) }).catch(() => {});
  const gotoPos = async (pos) => {
    await page.keyboard.press('Control+G');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(pos); await page.keyboard.press('Enter');
    await page.waitForTimeout(400);
  };
  const coordsOf = (line, text) => page.evaluate(([line, text]) => {
    const ed = document.querySelector('.editor-group-container.active .monaco-editor');
    const num = [...ed.querySelectorAll('.margin-view-overlays .line-numbers')].find((e) => e.innerText.trim() === String(line));
    if (!num) return null;
    const top = num.getBoundingClientRect().top;
    const vl = [...ed.querySelectorAll('.view-lines .view-line')].find((e) => Math.abs(e.getBoundingClientRect().top - top) < 3);
    if (!vl) return null;
    const walk = document.createTreeWalker(vl, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const i = n.data.replace(/\u00a0/g, ' ').indexOf(text);
      if (i < 0) continue;
      const r = document.createRange(); r.setStart(n, i + 1); r.setEnd(n, i + 2);
      const b = r.getBoundingClientRect(); return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
    }
    return null;
  }, [line, text]);
  const hoverText = () => page.evaluate(() => [...document.querySelectorAll('.monaco-editor .monaco-hover')].filter((e) => e.offsetParent !== null && e.innerText.trim()).map((e) => e.innerText.trim())[0] || '');
  const status = () => page.evaluate(() => [...document.querySelectorAll('.part.statusbar .statusbar-item')].filter((e) => e.offsetParent !== null).map((e) => (e.innerText || '').trim().replace(/\s+/g, ' ')).filter(Boolean).join(' | '));
  await page.goto(url);
  await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 120000 });
  await page.click('.monaco-workbench .part.editor');
  let k = 0;
  for (const s of spec) {
    k++;
    if (!s.file) {
      await page.waitForTimeout(s.wait || 8000);
      console.log(`## (no file opened): status: ${await status()}`);
      await shot(`${k}-open.png`);
      continue;
    }
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(s.file);
    const base = path.basename(s.file);
    await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${base}"]`, { timeout: 60000 });
    const rows = await page.$$(`.quick-input-list .monaco-list-row[aria-label*="${base}"]`);
    let pick = rows[0];
    for (const r of rows) if (((await r.getAttribute('aria-label')) || '').includes(path.dirname(s.file))) { pick = r; break; }
    await pick.click();
    await page.waitForTimeout(s.wait || 8000);
    console.log(`## ${s.file}: status: ${await status()}`);
    await shot(`${k}-open.png`);
    let h = 0;
    for (const [line, text] of s.hovers || []) {
      h++;
      await gotoPos(`${line}:1`);
      await page.waitForTimeout(500);
      const p = await coordsOf(line, text);
      if (!p) { console.log(`hover ${line} ${text}: not on screen`); continue; }
      await page.mouse.move(5, 300); await page.waitForTimeout(100);
      await page.mouse.move(p.x, p.y, { steps: 2 });
      let t = '';
      for (let i = 0; i < 40 && !t; i++) { await page.waitForTimeout(150); t = await hoverText(); }
      console.log(`hover ${line} ${JSON.stringify(text)}:\n${t}\n---`);
      await shot(`${k}-hover${h}.png`);
    }
    let ti = 0;
    for (const [pos, text] of s.types || []) {
      ti++;
      await gotoPos(pos);
      await page.keyboard.press('End');
      await page.keyboard.press('Enter');
      await page.keyboard.type(text, { delay: 80 });
      await page.waitForTimeout(2500);
      const rows = await page.evaluate(() => [...document.querySelectorAll('.suggest-widget .monaco-list-row')].map((e) => (e.getAttribute('aria-label') || e.innerText).replace(/\s+/g, ' ')).slice(0, 12));
      console.log(`type at ${pos} ${JSON.stringify(text)}: suggestions:\n  ${rows.join('\n  ')}`);
      await shot(`${k}-type${ti}.png`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(4000);
      const diags = await page.evaluate(() => [...document.querySelectorAll('.squiggly-error, .squiggly-warning')].length);
      console.log(`  squiggles after: ${diags}`);
      await shot(`${k}-type${ti}-after.png`);
    }
    let li = 0;
    for (const [line, text] of s.links || []) {
      li++;
      await gotoPos(`${line}:1`);
      await page.waitForTimeout(500);
      const p = await coordsOf(line, text);
      if (!p) { console.log(`link ${line} ${text}: not on screen`); continue; }
      await page.mouse.move(5, 300);
      await page.keyboard.down('Control');
      await page.mouse.move(p.x, p.y, { steps: 3 });
      await page.waitForTimeout(1500);
      const t = await hoverText();
      await shot(`${k}-link${li}.png`);
      await page.mouse.click(p.x, p.y);
      await page.keyboard.up('Control');
      await page.waitForTimeout(2000);
      const tab = await page.evaluate(() => { const e = document.querySelector('.tab.active'); return e ? e.getAttribute('aria-label') : ''; });
      console.log(`link ${line} ${JSON.stringify(text)}: hover ${JSON.stringify(t)} -> tab ${tab}`);
      await shot(`${k}-link${li}-opened.png`);
      await page.keyboard.press('Control+P'); await page.keyboard.type(s.file);
      await page.waitForTimeout(1500); await page.keyboard.press('Enter'); await page.waitForTimeout(800);
    }
    let d = 0;
    for (const [line, text] of s.defs || []) {
      d++;
      await page.mouse.move(5, 300);
      await page.keyboard.press('Escape');
      const p0 = await coordsOf(line, text);
      if (!p0) { await gotoPos(`${line}:1`); }
      const p = await coordsOf(line, text);
      if (!p) { console.log(`def ${line} ${text}: not on screen`); continue; }
      await page.mouse.click(p.x, p.y);
      await page.keyboard.press('F12');
      await page.waitForTimeout(2500);
      const tab = await page.evaluate(() => (document.querySelector('.tab.active') || {}).getAttribute ? document.querySelector('.tab.active').getAttribute('aria-label') : '');
      const sel = await page.evaluate(() => (document.querySelector('#status\\.editor\\.selection') || {}).innerText || '');
      const peek = await page.evaluate(() => !!document.querySelector('.peekview-widget'));
      console.log(`def ${line} ${JSON.stringify(text)} -> tab ${tab} ${sel} peek=${peek}`);
      await shot(`${k}-def${d}.png`);
      await page.keyboard.press('Escape');
      // back to the file
      await page.keyboard.press('Control+P'); await page.keyboard.type(s.file);
      await page.waitForTimeout(1500); await page.keyboard.press('Enter'); await page.waitForTimeout(800);
    }
  }
  await page.keyboard.press('Control+Shift+M');
  await page.waitForTimeout(1500);
  const rows = await page.evaluate(() => [...document.querySelectorAll('.markers-panel .monaco-list-row')].map((e) => e.getAttribute('aria-label')).slice(0, 30));
  console.log('## problems:\n' + rows.join('\n'));
  await shot('problems.png');
  await close();
})().catch((e) => { console.log('ERROR', e.message); process.exit(1); });
