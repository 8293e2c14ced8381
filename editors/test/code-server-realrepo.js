// Measures ordering-lsp in a real VS Code workbench (code-server) on a big repository, as a user
// sees it: what the screen shows and when. Run by code-server-realrepo.sh (see its header).
// Usage: CS_PID=<code-server pid> SERVER=<server binary> NODE_PATH=<playwright>/node_modules \
//          node code-server-realrepo.js URL REPO FILE OUT_DIR
// Every time is read off the DOM by a recorder in the page (50 ms polling) and is in ms from the
// moment the file is chosen in Quick Open (open) or from the keystroke / mouse move (the others).
// Hovers are asked with the mouse, as a user does: the figure includes VS Code's 300 ms hover delay.
// The server's CPU comes from /proc/<pid>/stat of the ordering-lsp that this code-server started.
// Steps (each printed "ok - name (figures)" or "not ok - name: what never showed"):
//   open       Quick Open FILE, Ctrl+G 42:16 -> tab, first code lens, first inlay hint, keyboard hover
//              (Ctrl+K Ctrl+I, retried while empty) on the title at the cursor; the status bar
//              items over time; settled = no spinner in the status bar and the server idle 1.5 s
//   keystroke  one character typed in a comment -> mouse hover on another resource answered
//   new-line   a line `notify { 'x': }` inserted (one edit, as a paste; REALREPO_LINE another
//              line: `package { 'x': ensure => installed }`) -> a lens above it; mouse
//              hovers every second until the server settles: when the hover first said what it
//              says settled (the edit adds a step to the runs it names)
//   burst      `notify { 'burst': }` typed on a new line, 20 keys 100 ms apart (REALREPO_BURST
//              another line: `$burst_dir = '/srv/b'`); mouse hovers after keys 5, 10, 15 and
//              20, then every second until settled
//   problems   the Problems panel's rows (count and the first ones)
// Writes open-{1,3,6}s.png and status-{1,3,6}s.png (the status bar) at those times after the
// open, hover-open.png, open-settled.png, status-settled.png, keystroke-hover.png, new-line.png,
// burst-hover.png, burst-settled.png, lenses.png, problems.png. Prints "RESULT {json}" last (with
// the recorder's whole timeline); exit code = steps that did not complete.
const { chromium } = require('playwright-core');
const { launch: launchChromium } = require('./chromium.js');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const [url, , file, outDir = '.'] = process.argv.slice(2); // (REPO: for the reader of the command line)
const SERVER = process.env.SERVER;
const CS_PID = Number(process.env.CS_PID || 0);
const HZ = 100; // USER_HZ of /proc/<pid>/stat
const res = { url, file, steps: {}, timeline: [] };
let failed = 0;
const t0 = Date.now();
const NEW_LINE = process.env.REALREPO_LINE || "notify { 'x': }"; // (what the new-line step pastes)
const BURST = process.env.REALREPO_BURST || "notify { 'burst': }"; // (what the burst step types)

function report(name, ok, detail) {
  res.steps[name] = { ok, detail };
  if (ok) console.log(`ok - ${name} (${detail})`);
  else { failed++; console.log(`not ok - ${name}: ${detail}`); }
}
const fmt = (ms) => (ms == null ? 'never' : `${ms} ms`);

// --- the server process: found among code-server's descendants, sampled every 100 ms
function ppidOf(pid) {
  try { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]); } catch { return 0; }
}
function serverPid() {
  let pids = [];
  try {
    const re = '^' + SERVER.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + ' serve';
    pids = execFileSync('pgrep', ['-f', re], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch { return 0; }
  for (const p of pids) {
    for (let a = p, i = 0; a > 1 && i < 20; a = ppidOf(a), i++) if (a === CS_PID) return p;
  }
  return CS_PID ? 0 : pids[0] || 0;
}
function cpuTicks(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]); // utime + stime
  } catch { return null; }
}
function memory(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number((s.match(new RegExp(`^${k}:\\s+(\\d+)`, 'm')) || [])[1] || 0);
    return { rssMB: Math.round(kb('VmRSS') / 1024), peakMB: Math.round(kb('VmHWM') / 1024) };
  } catch { return null; }
}
const srv = { pid: 0, seenAt: null, samples: [], base: 0 }; // samples: [t, cumulative ticks of every server pid]
setInterval(() => {
  if (!srv.pid || cpuTicks(srv.pid) == null) {
    const p = serverPid();
    if (p && p !== srv.pid) {
      if (srv.pid) srv.base += srv.samples.length ? srv.samples[srv.samples.length - 1][1] - srv.base : 0; // a restart: keep counting
      srv.pid = p;
      if (!srv.seenAt) srv.seenAt = Date.now();
      res.server_pids = [...(res.server_pids || []), p];
    }
  }
  const t = srv.pid ? cpuTicks(srv.pid) : null;
  if (t != null) srv.samples.push([Date.now(), srv.base + t]);
}, 100).unref();
const cpuAt = (t) => { // cumulative server CPU seconds at time t
  let v = 0;
  for (const [ts, ticks] of srv.samples) { if (ts > t) break; v = ticks; }
  return v / HZ;
};
const cpuNow = () => (srv.samples.length ? srv.samples[srv.samples.length - 1][1] / HZ : 0);
const busy = (ms) => { // server CPU seconds over the last ms
  const now = Date.now();
  return cpuNow() - cpuAt(now - ms);
};

(async () => {
  const { browser, close } = await launchChromium(chromium);
  const page = browser.pages()[0] || await browser.newPage();
  const shot = (name, opts = {}) => page.screenshot({ path: path.join(outDir, name), ...opts }).catch(() => {});
  const statusShot = async (name) => {
    const box = await page.locator('.part.statusbar').boundingBox().catch(() => null);
    if (box) await shot(name, { clip: { x: 0, y: box.y, width: Math.min(box.width, 900), height: box.height } });
  };

  // The recorder: every 50 ms, what the screen shows that we care about, each change timestamped.
  const installRecorder = () => page.evaluate(() => {
    const rr = { ev: [], last: {} };
    window.__rr = rr;
    const rec = (k, v) => { if (rr.last[k] !== v) { rr.last[k] = v; rr.ev.push([Date.now(), k, v]); } };
    setInterval(() => {
      // left status bar items; a spinning icon (progress, "starting") is written as "~"
      const items = [...document.querySelectorAll('.part.statusbar .left-items .statusbar-item')]
        .filter((e) => e.offsetParent !== null)
        .map((e) => (e.querySelector('[class*="spin"]') ? '~' : '') + (e.innerText || '').trim().replace(/\s+/g, ' '))
        .filter((t) => t && t !== '~');
      rec('status', items.join(' | '));
      const ed = document.querySelector('.editor-group-container.active .monaco-editor');
      if (ed) {
        const lenses = [...ed.querySelectorAll('.contentWidgets .codelens-decoration')].map((e) => e.innerText.trim()).filter(Boolean);
        rec('lenses', lenses.join(' ¦ '));
        const text = (ed.querySelector('.view-lines') || {}).innerText || '';
        rec('hints', (text.match(/#\d+\/\d+|⟳[^:\n]*/g) || []).join(' '));
      }
      const hover = [...document.querySelectorAll('.monaco-editor .monaco-hover')]
        .filter((e) => e.offsetParent !== null && e.innerText.trim()).map((e) => e.innerText.trim())[0] || '';
      const flat = hover.replace(/\s+/g, ' ');
      // its head and its end (where it runs comes last, after the lists of relationships)
      rec('hover', flat.length > 560 ? flat.slice(0, 160) + ' … ' + flat.slice(-400) : flat);
    }, 50);
  });
  const events = () => page.evaluate(() => window.__rr.ev);
  // first event of kind k after t whose value satisfies pred
  const firstAfter = (evs, t, k, pred) => evs.find(([ts, kind, v]) => ts >= t && kind === k && pred(v));
  // our hover starts with the declaration and its kind: "File[/usr/local/sbin] · resource in ..."
  const OURS = /\w\[[^\]]*\] · /;


  const runCommand = async (title) => {
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.press('Control+A');
    await page.keyboard.type('>' + title);
    await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label^="${title}"]`, { timeout: 10000 });
    await page.keyboard.press('Enter');
  };
  const gotoPos = async (pos) => {
    await page.keyboard.press('Control+G');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(pos);
    await page.keyboard.press('Enter');
    const [l, c] = pos.split(':');
    await page.waitForFunction((want) => {
      const e = document.querySelector('#status\\.editor\\.selection');
      return e && e.innerText.startsWith(want);
    }, `Ln ${l}, Col ${c || 1}`, { timeout: 5000 }).catch(() => {});
    await page.waitForSelector('.quick-input-widget', { state: 'hidden', timeout: 5000 }).catch(() => {});
  };
  // screen coordinates of `text` on line `line` of the active editor (null when not on screen)
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
      const r = document.createRange();
      r.setStart(n, i + Math.floor(text.length / 2)); r.setEnd(n, i + Math.floor(text.length / 2) + 1);
      const b = r.getBoundingClientRect();
      return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
    }
    return null;
  }, [line, text]);
  // the lens above a line (its bottom touches the line's top), or null
  const lensAbove = (line) => page.evaluate((line) => {
    const ed = document.querySelector('.editor-group-container.active .monaco-editor');
    const num = [...ed.querySelectorAll('.margin-view-overlays .line-numbers')].find((e) => e.innerText.trim() === String(line));
    if (!num) return null;
    const top = num.getBoundingClientRect().top;
    const l = [...ed.querySelectorAll('.contentWidgets .codelens-decoration')]
      .find((e) => e.innerText.trim() && Math.abs(e.getBoundingClientRect().bottom - top) < 8);
    return l ? l.innerText.trim() : null;
  }, line);
  // mouse hover over `text` on `line`: the mouse leaves the editor first (a new hover, not the
  // one already shown); returns [ms until our hover text, that text] (null when not in timeout)
  const mouseHover = async (line, text, timeout) => {
    const p = await coordsOf(line, text);
    if (!p) throw new Error(`${JSON.stringify(text)} is not on screen at line ${line}`);
    await page.mouse.move(5, 300); // over the activity bar
    await page.waitForTimeout(50);
    const ts = Date.now();
    await page.mouse.move(p.x, p.y, { steps: 2 });
    // the text may move under the mouse (lenses come and go above it): after 2 s without a
    // hover, point at it again, as a user would
    for (let moves = 1; ; moves++) {
      const left = ts + timeout - Date.now();
      if (left <= 0) break;
      const h = await page.waitForFunction(([ts, src]) => {
        const e = window.__rr.ev.find(([t, k, v]) => t >= ts && k === 'hover' && new RegExp(src, 'i').test(v));
        return e ? e : null;
      }, [ts, OURS.source], { timeout: Math.min(left, 2000), polling: 50 }).then((x) => x.jsonValue(), () => null);
      if (h) { if (moves > 1) res.hover_repointed = (res.hover_repointed || 0) + 1; return [h[0] - ts, h[2]]; }
      const q = await coordsOf(line, text);
      if (q) { await page.mouse.move(5, 300); await page.mouse.move(q.x, q.y, { steps: 2 }); }
    }
    return [null, (await page.evaluate(() => window.__rr.last.hover)) || ''];
  };
  // Settled: the server idle (< 5% of a core) for QUIET ms and no spinner in the status bar.
  // waitSettled waits until it is so now, then returns (ms after since) the end of the last
  // busy window, from the CPU samples and the status bar's history (steps hover meanwhile).
  const QUIET = 1500;
  const spinning = (v) => /(^|\| )~/.test(v || '');
  const waitSettled = async (since, maxMs) => {
    const deadline = Date.now() + maxMs;
    await page.waitForTimeout(QUIET);
    while (Date.now() < deadline) {
      const status = await page.evaluate(() => window.__rr.last.status || '');
      if (srv.pid && busy(QUIET) < 0.05 * QUIET / 1000 && !spinning(status)) break;
      await page.waitForTimeout(250);
    }
    if (Date.now() >= deadline) return null;
    const evs = (await events()).filter(([, k]) => k === 'status');
    const spinAt = (t) => { let v = ''; for (const [ts, , s] of evs) { if (ts > t) break; v = s; } return spinning(v); };
    const spinIn = (a, b) => spinAt(a) || evs.some(([ts, , s]) => ts > a && ts <= b && spinning(s));
    // back from now: the end of the last busy window (the hovers meanwhile cost little)
    for (let a = Date.now() - QUIET; a >= since; a -= 100) {
      if (cpuAt(a + QUIET) - cpuAt(a) >= 0.05 * QUIET / 1000 || spinIn(a, a + QUIET)) return Math.max(0, a + QUIET - since);
    }
    return 0;
  };
  const phaseCpu = (from, to) => +(cpuAt(to) - cpuAt(from)).toFixed(2);

  try {
    await page.goto(url);
    await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
    await page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 120000 });
    res.workbench_ms = Date.now() - t0;
    await installRecorder();
    await page.click('.monaco-workbench .part.editor');
    console.log(`# workbench with the repository's explorer: ${res.workbench_ms} ms; server process already running: ${!!srv.pid}`);

    // --- 1, 2: open the file at the title of its first resource, hover there at once
    let tOpen = 0;
    const base = path.basename(file);
    await (async () => {
      await page.keyboard.press('Control+P');
      await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
      const tType = Date.now();
      await page.keyboard.type(file); // (a :line:col suffix lists nothing on this VS Code)
      const row = `.quick-input-list .monaco-list-row[aria-label*="${base}"]`;
      // the first file search of a cold workbench on a big folder can take many seconds
      await page.waitForSelector(row, { timeout: 120000 });
      res.quick_open_ms = Date.now() - tType;
      console.log(`# Quick Open listed ${base}: ${res.quick_open_ms} ms after typing its path`);
      const rows = await page.$$(row);
      let pick = rows[0];
      for (const r of rows) if (((await r.getAttribute('aria-label')) || '').includes(path.dirname(file))) { pick = r; break; }
      tOpen = Date.now();
      // screenshots at fixed times after the open, whatever the steps below are doing
      const timed = [1000, 3000, 6000].map((ms) => new Promise((ok) => setTimeout(async () => {
        const at = Date.now() - tOpen;
        await shot(`open-${ms / 1000}s.png`); await statusShot(`status-${ms / 1000}s.png`);
        (res.shots = res.shots || {})[`open-${ms / 1000}s.png`] = at;
        ok();
      }, ms)));
      await pick.click();
      await page.waitForSelector(`.tab.active[aria-label*="${base}"]`, { timeout: 30000 });
      res.open = { tab_ms: Date.now() - tOpen };
      await gotoPos('42:16');
      res.open.cursor_ms = Date.now() - tOpen;
      // keyboard hover at the cursor (the title '/usr/local/sbin'), retried while nothing shows
      let tries = 0; let lastTry = 0;
      let hoverShot = false;
      const deadline = tOpen + 120000;
      for (;;) {
        const now = Date.now();
        const rr = await page.evaluate(() => window.__rr.last);
        const ours = OURS.test(rr.hover || '');
        if (ours && !hoverShot) { hoverShot = true; await shot('hover-open.png'); }
        if (!ours && !rr.hover && now - lastTry > 1500 && tries < 60) {
          tries++; lastTry = Date.now();
          await page.keyboard.press('Control+K'); await page.keyboard.press('Control+I');
          if (tries === 1) res.open.hover_asked_ms = Date.now() - tOpen;
        }
        if (ours && rr.lenses && rr.hints) break;
        if (now > deadline) break;
        await page.waitForTimeout(100);
      }
      res.open.hover_tries = tries;
      await page.keyboard.press('Escape');
      await Promise.all(timed);
      const settled = await waitSettled(tOpen, 180000);
      await page.mouse.move(5, 300);
      await page.waitForTimeout(300);
      await shot('open-settled.png');
      await statusShot('status-settled.png');
      const evs = await events();
      const lens = firstAfter(evs, tOpen, 'lenses', (v) => !!v);
      const hint = firstAfter(evs, tOpen, 'hints', (v) => !!v);
      const hov = firstAfter(evs, tOpen, 'hover', (v) => OURS.test(v));
      const rr = await page.evaluate(() => window.__rr.last);
      Object.assign(res.open, {
        server_seen_ms: srv.seenAt ? srv.seenAt - tOpen : null,
        first_lens_ms: lens ? lens[0] - tOpen : null, first_lens: lens && lens[2].split(' ¦ ')[0],
        first_hint_ms: hint ? hint[0] - tOpen : null, first_hints: hint && hint[2].slice(0, 120),
        hover_ms: hov ? hov[0] - tOpen : null, hover: hov && hov[2],
        settled_ms: settled, cpu_s: phaseCpu(tOpen, Date.now()), server_cpu_before_open_s: +cpuAt(tOpen).toFixed(2),
        lenses_settled: rr.lenses, hints_settled: rr.hints,
        status: evs.filter(([ts, k]) => k === 'status' && ts >= tOpen - 500).map(([ts, , v]) => `${ts - tOpen} ms: ${v}`),
      });
      const lensLast = evs.filter(([, k]) => k === 'lenses').pop();
      const hintLast = evs.filter(([, k]) => k === 'hints').pop();
      res.open.lenses_final_ms = lensLast ? lensLast[0] - tOpen : null;
      res.open.hints_final_ms = hintLast ? hintLast[0] - tOpen : null;
      console.log(`# open: server process seen ${fmt(res.open.server_seen_ms)}; tab ${res.open.tab_ms} ms; cursor at 42:16 ${res.open.cursor_ms} ms; first lens ${fmt(res.open.first_lens_ms)} (${JSON.stringify(res.open.first_lens)}); first inlay hint ${fmt(res.open.first_hint_ms)}; hover ${fmt(res.open.hover_ms)} (Ctrl+K Ctrl+I pressed at ${fmt(res.open.hover_asked_ms)}, ${tries}x); lenses last changed ${fmt(res.open.lenses_final_ms)}, hints ${fmt(res.open.hints_final_ms)}; settled ${fmt(settled)}; server CPU ${res.open.cpu_s} s (+${res.open.server_cpu_before_open_s} s before the open)`);
      for (const s of res.open.status) console.log(`#   status bar ${s}`);
      console.log(`#   hover: ${JSON.stringify(res.open.hover)}`);
      console.log(`#   screenshots taken at ${JSON.stringify(res.shots)} ms`);
      report('open', !!lens && !!hint && !!hov, `lens ${fmt(res.open.first_lens_ms)}, inlay hint ${fmt(res.open.first_hint_ms)}, hover ${fmt(res.open.hover_ms)}, settled ${fmt(settled)}`);
    })().catch(async (e) => { report('open', false, String(e.message || e).split('\n')[0]); await shot('error-open.png'); });

    // the hover target of the edits: the other resource of line 42, next to the typing
    const other = [42, '/usr/local/share/bash'];
    // --- 3a: one keystroke in a comment -> hover on another resource
    await (async () => {
      await gotoPos('41:1');
      await page.keyboard.press('End');
      const before = await mouseHover(...other, 30000);
      await page.mouse.move(5, 300);
      const cpu0 = cpuNow(); const tKey = Date.now();
      await page.keyboard.press('x');
      const [ms, h] = await mouseHover(...other, 60000);
      await shot('keystroke-hover.png');
      const settled = await waitSettled(tKey, 120000);
      res.keystroke = { hover_ms: ms, hover: h, hover_before: before[1], settled_ms: settled, cpu_s: +(cpuNow() - cpu0).toFixed(2) };
      console.log(`# keystroke: hover on ${other[1]} ${fmt(ms)} after the mouse reached it (~100 ms after the key); settled ${fmt(settled)}; server CPU ${res.keystroke.cpu_s} s`);
      report('keystroke', ms != null && before[0] != null, `hover ${fmt(ms)}; before the key ${fmt(before[0])}`);
    })().catch(async (e) => { report('keystroke', false, String(e.message || e).split('\n')[0]); await shot('error-keystroke.png'); });

    // Hovers every second on `other` until the server has settled; the last one is the settled
    // answer. Returns them and when the hover first said what it says settled (its text holds the
    // position, "of N" steps: the edits below add one).
    const hoverUntilSettled = async (tEdit, maxMs) => {
      const hovers = [];
      const dl = Date.now() + maxMs;
      while (Date.now() < dl) {
        const [ms, h] = await mouseHover(...other, 20000);
        hovers.push({ at: Date.now() - tEdit, ms, h });
        await page.mouse.move(5, 300);
        const status = await page.evaluate(() => window.__rr.last.status || '');
        if (Date.now() - tEdit > 3000 && busy(QUIET) < 0.05 * QUIET / 1000 && !spinning(status)) break;
        await page.waitForTimeout(500);
      }
      const final = hovers.length ? hovers[hovers.length - 1].h : '';
      const fresh = hovers.find((x) => x.ms != null && x.h === final);
      return { hovers, final, fresh_ms: fresh ? fresh.at : null };
    };
    const tail = (h) => (h || '').slice(-90);

    // --- 3b: a new resource line (one edit, as a paste) -> its lens; the hover of the resources
    // before it changes (one more step in their runs): when does it say what it says settled?
    await (async () => {
      const [, hBefore] = await mouseHover(...other, 30000);
      await gotoPos('47:1');
      await page.keyboard.press('End');
      await page.mouse.move(5, 300);
      const cpu0 = cpuNow(); const tEdit = Date.now();
      await page.keyboard.press('Enter');
      await page.keyboard.insertText(NEW_LINE);
      let lensMs = null; let lensText = null;
      const dl = Date.now() + 60000;
      while (Date.now() < dl) {
        lensText = await lensAbove(48);
        if (lensText) { lensMs = Date.now() - tEdit; break; }
        await page.waitForTimeout(50);
      }
      await shot('new-line.png');
      const hv = await hoverUntilSettled(tEdit, 120000);
      const settled = await waitSettled(tEdit, 120000);
      const lensSettled = await lensAbove(48);
      res.new_line = { lens_ms: lensMs, lens: lensText, lens_settled: lensSettled, hover_before: hBefore, hovers: hv.hovers.map((x) => [x.at, x.ms, tail(x.h)]),
        hover_settled: hv.final, hover_settled_from_ms: hv.fresh_ms, hover_changed: hv.final !== hBefore, settled_ms: settled, cpu_s: +(cpuNow() - cpu0).toFixed(2) };
      const first = hv.hovers.find((x) => x.ms != null);
      console.log(`# new line ${NEW_LINE}: its lens ${fmt(lensMs)} (${JSON.stringify(lensText)}, settled ${JSON.stringify(lensSettled)}); hover on ${other[1]}: first answer ${first ? `${first.ms} ms after the mouse, ${first.at} ms after the edit` : 'never'}, its settled text from ${fmt(hv.fresh_ms)} after the edit (changed by the edit: ${res.new_line.hover_changed}); settled ${fmt(settled)}; server CPU ${res.new_line.cpu_s} s`);
      console.log(`#   hover before: …${JSON.stringify(tail(hBefore))}`);
      for (const h of hv.hovers) console.log(`#   hover at +${h.at} ms: ${fmt(h.ms)} …${JSON.stringify(tail(h.h))}`);
      report('new-line', lensMs != null && hv.fresh_ms != null, `lens ${fmt(lensMs)}, settled hover from ${fmt(hv.fresh_ms)}`);
    })().catch(async (e) => { report('new-line', false, String(e.message || e).split('\n')[0]); await shot('error-new-line.png'); });

    // --- 4: a burst of 20 keystrokes 100 ms apart, typing a resource on a new line (the text
    // is broken until the last one), mouse hovers after keys 5, 10, 15 and 20, then until settled
    await (async () => {
      await gotoPos('48:1');
      await page.keyboard.press('End');
      const [, hBefore] = await mouseHover(...other, 30000);
      await page.mouse.move(5, 300);
      const cpu0 = cpuNow(); const tBurst = Date.now();
      const hovers = [];
      const keys = ['Enter', ...(BURST.split('').map((c) => (c === ' ' ? 'Space' : c)))];
      for (let i = 0; i < keys.length; i++) {
        await page.keyboard.press(keys[i]);
        await page.waitForTimeout(100);
        if ((i + 1) % 5 === 0) {
          const last = i + 1 === keys.length;
          const [ms, h] = await mouseHover(...other, last ? 60000 : 3000);
          hovers.push({ after_keys: i + 1, ms, text: tail(h) });
          if (last) await shot('burst-hover.png');
          await page.mouse.move(5, 300);
        }
      }
      const tEnd = Date.now();
      const typed = await page.evaluate(() => (document.querySelector('.editor-group-container.active .monaco-editor .view-lines') || {}).innerText || '');
      const hv = await hoverUntilSettled(tEnd, 180000);
      const settled = await waitSettled(tEnd, 180000);
      await page.waitForTimeout(300);
      await shot('burst-settled.png');
      const cpu = +(cpuNow() - cpu0).toFixed(2);
      res.burst = { hovers, after: hv.hovers.map((x) => [x.at, x.ms, tail(x.h)]), hover_settled_from_ms: hv.fresh_ms, hover_changed: hv.final !== hBefore,
        typed_ok: typed.replace(/\u00a0/g, ' ').includes(BURST.slice(0, 12)), burst_ms: tEnd - tBurst, settled_after_last_key_ms: settled, cpu_s: cpu, cpu_per_key_s: +(cpu / keys.length).toFixed(2) };
      console.log(`# burst of ${keys.length} keys (${tEnd - tBurst} ms with the hovers; the line reads "${BURST.slice(0, 12)}": ${res.burst.typed_ok}): settled ${fmt(settled)} after the last key; hover's settled text from ${fmt(hv.fresh_ms)} after the last key; server CPU ${cpu} s (${res.burst.cpu_per_key_s} s per key)`);
      for (const h of hovers) console.log(`#   hover after ${h.after_keys} keys: ${fmt(h.ms)} …${JSON.stringify(h.text)}`);
      for (const h of hv.hovers) console.log(`#   hover at +${h.at} ms after the burst: ${fmt(h.ms)} …${JSON.stringify(tail(h.h))}`);
      report('burst', hovers.every((h) => h.ms != null) && hv.fresh_ms != null, hovers.map((h) => `${h.after_keys}: ${fmt(h.ms)}`).join(', ') + `, settled text from ${fmt(hv.fresh_ms)}`);
    })().catch(async (e) => { report('burst', false, String(e.message || e).split('\n')[0]); await shot('error-burst.png'); });

    // --- what is on screen at the end: lenses and hints of the file, the Problems panel
    await (async () => {
      await gotoPos('18:1');
      await page.waitForTimeout(500);
      await shot('lenses.png');
      res.lenses_at_end = await page.evaluate(() => window.__rr.last.lenses);
      await page.keyboard.press('Control+Shift+M');
      await page.waitForSelector('.markers-panel', { timeout: 10000 });
      await page.waitForTimeout(1500);
      const rows = await page.$$eval('.markers-panel .monaco-list-row', (rs) => rs.map((r) => (r.getAttribute('aria-label') || r.innerText).replace(/\s+/g, ' ').slice(0, 300)));
      const badge = await page.$$eval('.part.statusbar .statusbar-item', (es) => es.map((e) => e.getAttribute('aria-label') || '').filter((a) => /error|warning/i.test(a))).catch(() => []);
      await shot('problems.png');
      res.problems = { status: badge, rows: rows.slice(0, 40) };
      console.log(`# problems: status bar ${JSON.stringify(badge)}; first rows:`);
      for (const r of rows.slice(0, 12)) console.log(`#   ${r}`);
      report('problems', true, `${rows.length} rows on screen`);
    })().catch(async (e) => { report('problems', false, String(e.message || e).split('\n')[0]); await shot('error-problems.png'); });

    const mem = srv.pid ? memory(srv.pid) : null;
    res.server = { pids: res.server_pids, cpu_total_s: +cpuNow().toFixed(2), ...mem };
    console.log(`# server: pids ${JSON.stringify(res.server_pids)}; CPU over the session ${res.server.cpu_total_s} s; RSS at the end ${mem ? mem.rssMB : '?'} MB (peak ${mem ? mem.peakMB : '?'} MB)`);
    // server CPU per second from the open (s of CPU in each second), for the settling figures
    const from = tOpen || t0; res.cpu_per_s = [];
    for (let t = from; t + 1000 <= Date.now(); t += 1000) res.cpu_per_s.push(+(cpuAt(t + 1000) - cpuAt(t)).toFixed(2));
    res.timeline = (await events()).map(([ts, k, v]) => [ts - (tOpen || t0), k, v.length > 400 ? v.slice(0, 100) + ' … ' + v.slice(-300) : v]);
  } catch (e) {
    report('workbench', false, String(e && e.message || e).split('\n')[0]);
    await shot('error-workbench.png');
  }
  res.total_ms = Date.now() - t0;
  console.log('RESULT ' + JSON.stringify(res));
  await close();
  process.exit(Math.min(failed, 100));
})();
