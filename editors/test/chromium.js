// The headless Debian Chromium the code-server drivers run VS Code in
// (code-server-drive.js, the end-to-end test; code-server-realrepo.js, the
// measurement on a real repository): one profile folder of its own, no
// sandbox (root in CI), nothing that reaches the network by itself.
const fs = require('fs');
const os = require('os');
const path = require('path');

// launch starts the browser; close it with close(), which also removes
// its profile folder.
exports.launch = async (chromium) => {
  const udd = fs.mkdtempSync(path.join(os.tmpdir(), 'ordering-chromium-'));
  const browser = await chromium.launchPersistentContext(udd, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 760 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const close = async () => {
    await browser.close();
    fs.rmSync(udd, { recursive: true, force: true });
  };
  return { browser, close };
};
