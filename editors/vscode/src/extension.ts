import * as cp from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  CloseAction, ErrorAction, LanguageClient, LanguageClientOptions, RevealOutputChannelOn, ServerOptions, State,
} from 'vscode-languageclient/node';
import { documentSelector, isOrderingDocument } from './languages';
import { candidate, claimingTrigger, claimsDocument, HEAD_BYTES, settingReason, Trigger, TRIGGERS } from './activation';
import { resolveServerPath } from './serverPath';
import { didChangeConfigurationParams, toServerSettings } from './settings';
import { RestartPolicy } from './restartPolicy';
import { diff, why } from './whyDiff';
import { GraphPanel } from './graphPanel';
import { OrderTreeProvider } from './orderTree';
import { reveal } from './reveal';
import { INSTALL_MODULES_COMMAND, installFailure, installRefusal } from './install';
import { NodePicker } from './nodePicker';
import { NODE_VIEW, NodeMatrixView } from './nodeMatrixView';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let traceOutput: vscode.OutputChannel;
let status: vscode.StatusBarItem;
const restarts = new RestartPolicy();
let lastDoc: vscode.Uri | undefined;
let serverPath: string | undefined; // the server binary in use, for `ordering-lsp diff`

function serverSettings() {
  const cfg = vscode.workspace.getConfiguration('ordering');
  return toServerSettings((k) => cfg.get(k), { workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, HOME: process.env.HOME });
}

function isExecutable(f: string): boolean {
  try {
    if (!fs.statSync(f).isFile()) return false;
    if (process.platform !== 'win32') fs.accessSync(f, fs.constants.X_OK);
    return true;
  } catch { return false; }
}

/**
 * The server a platform-specific .vsix ships (extension/server/). A .vsix is a zip: the execute bit
 * does not always survive installation, so it is set again when missing.
 */
function bundledServer(context: vscode.ExtensionContext): string {
  const f = path.join(context.extensionPath, 'server', process.platform === 'win32' ? 'ordering-lsp.exe' : 'ordering-lsp');
  if (process.platform !== 'win32') {
    try {
      if (fs.statSync(f).isFile() && !isExecutable(f)) fs.chmodSync(f, 0o755);
    } catch { /* not bundled in this .vsix */ }
  }
  return f;
}

/** Logs "ordering-lsp 0.1.0 (abc123)" from the binary itself, without holding up the start. */
function logServerVersion(file: string): void {
  cp.execFile(file, ['version'], { encoding: 'utf8', timeout: 5000 }, (err, stdout) => {
    output.appendLine(`server version: ${err ? `unknown (${String(err).split('\n')[0]})` : stdout.trim()}`);
  });
}

async function offerFix(message: string, ...extra: string[]): Promise<void> {
  const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Output', ...extra);
  if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'ordering.server.path');
  else if (choice === 'Show Output') output.show(true);
  else if (choice === 'Restart Server') await vscode.commands.executeCommand('ordering.restartServer');
}

function setStatus(text: string, tooltip: string, error = false) {
  status.text = text;
  status.tooltip = tooltip;
  status.backgroundColor = error ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  status.show();
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const setting = vscode.workspace.getConfiguration('ordering').get<string>('server.path');
  const resolved = resolveServerPath(setting, {
    PATH: process.env.PATH, PATHEXT: process.env.PATHEXT, HOME: process.env.HOME || process.env.USERPROFILE,
    platform: process.platform, workspaceFolder: folder, isExecutable, bundled: bundledServer(context),
  });
  if (!resolved.ok) {
    output.appendLine(`cannot start: ${resolved.reason}`);
    setStatus('$(error) Ordering', resolved.reason, true);
    void offerFix(`Ordering: cannot start the language server: ${resolved.reason}. Install ordering-lsp or set "ordering.server.path".`);
    return;
  }
  serverPath = resolved.path;
  output.appendLine(`starting ${resolved.path} serve (found via ${resolved.from})`);
  logServerVersion(resolved.path);
  // We spawn the server ourselves to see it exit: a process that dies before answering initialize
  // does not always make the client reject start() or leave the Starting state, and then the user
  // would never hear why nothing works.
  const serverOptions: ServerOptions = async () => {
    const child = cp.spawn(resolved.path, ['serve'], { cwd: folder, stdio: 'pipe' });
    child.on('error', (err) => { if (!running) void startFailed(`cannot run it: ${err.message}`); });
    child.on('exit', (code, signal) => {
      if (!running) void startFailed(`the server exited during start-up (${signal ? `signal ${signal}` : `exit code ${code}`})`);
    });
    return child;
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(),
    initializationOptions: serverSettings(),
    outputChannel: output,
    traceOutputChannel: traceOutput,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    // the client registers the server's commands (executeCommandProvider); ours decide and word
    middleware: {
      executeCommand: (command, args, next) => (command === INSTALL_MODULES_COMMAND ? installModules(args) : next(command, args)),
    },
    errorHandler: {
      // logged in the output; our own notification (closed / startFailed) tells the user
      error: () => ({ action: ErrorAction.Continue, handled: true }),
      closed: () => {
        // died before the handshake finished: start() rejects and its catch decides
        if (!running) return { action: CloseAction.DoNotRestart, handled: true };
        const decision = restarts.crashed(Date.now());
        if (decision === 'restart') {
          output.appendLine(`server stopped unexpectedly; restarting (${restarts.recent} of ${restarts.max} in 3 minutes)`);
          setStatus('$(sync~spin) Ordering', 'restarting after a crash');
          void vscode.window.showWarningMessage(
            `Ordering: the language server stopped unexpectedly and was restarted (${restarts.recent}/${restarts.max}).`, 'Show Output',
          ).then((c) => { if (c) output.show(true); });
          return { action: CloseAction.Restart, handled: true };
        }
        setStatus('$(error) Ordering', 'the language server crashed too often', true);
        void offerFix(`Ordering: the language server crashed ${restarts.recent} times in 3 minutes and was not restarted. Check "ordering.server.path" and the output.`, 'Restart Server');
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
  };
  let running = false;
  let settled = false; // start-up outcome handled (running, or failure reported/retried)
  const c = new LanguageClient('ordering', 'Ordering Language Server', serverOptions, clientOptions);
  client = c;

  // The server died or never answered initialize: retry within the restart budget, then say so
  // with a fix. Reached from start()'s rejection or from the client stopping before it ran,
  // whichever comes first (a process that exits at once does not always reject start()).
  const startFailed = async (msg: string) => {
    if (settled) return;
    settled = true;
    output.appendLine(`start failed: ${msg}`);
    if (client === c) client = undefined;
    await c.dispose().catch(() => undefined);
    if (client) return; // a restart (command, settings) already replaced this client
    if (restarts.crashed(Date.now()) === 'restart') {
      output.appendLine(`retrying (${restarts.recent} of ${restarts.max} in 3 minutes)`);
      setStatus('$(sync~spin) Ordering', 'retrying');
      await new Promise((r) => setTimeout(r, 300 * restarts.recent));
      if (!client) await startClient(context);
      return;
    }
    setStatus('$(error) Ordering', msg, true);
    void offerFix(`Ordering: the language server ${resolved.path} could not start: ${msg}. Check "ordering.server.path" and the output.`, 'Restart Server');
  };

  c.onDidChangeState((e) => {
    if (e.newState === State.Running) { running = true; settled = true; setStatus('$(check) Ordering', `ordering-lsp: ${resolved.path}`); }
    else if (e.newState === State.Starting) setStatus('$(sync~spin) Ordering', 'starting');
    else if (e.newState === State.Stopped && !running) void startFailed('the server stopped during start-up');
  });
  setStatus('$(sync~spin) Ordering', 'starting');
  try {
    await c.start();
  } catch (err) {
    await startFailed(err instanceof Error ? err.message : String(err));
  }
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.stop().catch(() => undefined);
}

export function getClient(): LanguageClient | undefined {
  return client && client.state === State.Running ? client : undefined;
}

/**
 * Ordering: Install Puppetfile Modules (also the quick fix of a "not installed" hint): the server
 * runs r10k or g10k with progress, analyses again and says what it installed; a failure is shown
 * here with the installer's output in the Ordering channel.
 */
async function installModules(args: unknown[]): Promise<unknown> {
  const refusal = installRefusal(vscode.workspace.isTrusted);
  if (refusal) { void vscode.window.showWarningMessage(refusal); return undefined; }
  const c = getClient();
  if (!c) { void vscode.window.showErrorMessage('Ordering: the language server is not running.'); return undefined; }
  try {
    return await c.sendRequest('workspace/executeCommand', { command: INSTALL_MODULES_COMMAND, arguments: args });
  } catch (err) {
    const { summary, detail } = installFailure(err);
    output.appendLine(`install failed:\n${detail}`);
    if (await vscode.window.showErrorMessage(`Ordering: ${summary}`, 'Show Output')) output.show(true);
    return undefined;
  }
}

/** The file a view command is about: the active editor, else the last ordering document. */
export function currentDocument(): vscode.Uri | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc && isOrderingDocument(doc)) return doc.uri;
  return lastDoc;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const track = (e: vscode.TextEditor | undefined) => { if (e && isOrderingDocument(e.document)) lastDoc = e.document.uri; };
  track(vscode.window.activeTextEditor);
  context.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(track));

  const orderTree = new OrderTreeProvider(getClient);
  nodePicker = new NodePicker(getClient);
  const nodeView = new NodeMatrixView(getClient);
  context.subscriptions.push(nodePicker, nodeView);
  // A command is the user asking for the server: it starts a sleeping extension (see activation.ts).
  const command = (id: string, fn: (...args: any[]) => unknown) =>
    vscode.commands.registerCommand(id, async (...args: any[]) => { await wake(context, `command ${id}`); return fn(...args); });
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider('orderingExecutionOrder', orderTree),
    command('ordering.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('ordering.restartServer', async () => {
      if (!awake) { await wake(context, 'command ordering.restartServer'); return; }
      restarts.reset();
      await stopClient();
      await startClient(context);
    }),
    command('ordering.showGraph', () => GraphPanel.show(context, getClient, currentDocument()?.toString())),
    command('ordering.showGraphAtCursor', () => {
      const ed = vscode.window.activeTextEditor;
      if (!ed) { GraphPanel.show(context, getClient, currentDocument()?.toString()); return; }
      const at = ed.selection.active;
      GraphPanel.show(context, getClient, ed.document.uri.toString(), { line: at.line, character: at.character });
    }),
    command('ordering.showWorkspaceGraph', () => GraphPanel.show(context, getClient, undefined)),
    command('ordering.showOrder', async () => {
      const uri = currentDocument();
      if (!uri) { void vscode.window.showInformationMessage('Ordering: open a Puppet, Salt, CFEngine, Chef or Rudder file first.'); return; }
      await orderTree.load(uri.toString());
      await vscode.commands.executeCommand('orderingExecutionOrder.focus');
    }),
    command('ordering.showNodeMatrix', async () => {
      await vscode.commands.executeCommand(`${NODE_VIEW}.focus`);
      nodeView.soon(0);
    }),
    command('ordering.why', () => why(getClient)),
    command('ordering.diff', () => diff(() => serverPath)),
    // the code lens command: the dependency tree (call hierarchy) of a declaration
    vscode.commands.registerCommand('ordering.showDependencies', async (uri: string, pos: { line: number; character: number }) => {
      await reveal(uri, { start: pos, end: pos });
      await vscode.commands.executeCommand('references-view.showCallHierarchy');
    }),
    vscode.commands.registerCommand('ordering.order.reveal', (loc: { uri: string; range: any }) => reveal(loc.uri, loc.range)),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (!awake || !e.affectsConfiguration('ordering')) return;
      if (e.affectsConfiguration('ordering.server.path')) {
        restarts.reset();
        await stopClient();
        await startClient(context);
        return;
      }
      const c = getClient();
      if (c) await c.sendNotification('workspace/didChangeConfiguration', didChangeConfigurationParams(serverSettings()));
      GraphPanel.refreshSoon();
      orderTree.reloadSoon();
    }),
    // a new analysis publishes diagnostics: the open views follow the text
    vscode.languages.onDidChangeDiagnostics(() => { if (awake) { GraphPanel.refreshSoon(); orderTree.reloadSoon(); } }),
  );
  const reason = await reasonToStart();
  if (reason) await wake(context, reason);
  else sleep(context);
}

let awake = false;
let nodePicker: NodePicker | undefined;
let sleeping: vscode.Disposable[] = [];

/** Starts the server (once): creates what a user sees of the extension, the status bar items first. */
async function wake(context: vscode.ExtensionContext, reason: string): Promise<void> {
  if (awake) return;
  awake = true;
  for (const d of sleeping) d.dispose();
  sleeping = [];
  output = vscode.window.createOutputChannel('Ordering');
  traceOutput = vscode.window.createOutputChannel('Ordering Trace');
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  status.command = 'ordering.showOutput';
  context.subscriptions.push(output, traceOutput, status);
  nodePicker?.show();
  output.appendLine(`starting because ${reason}`);
  await startClient(context);
}

/** Why the server should run here: an open document or a workspace file it would analyse. */
async function reasonToStart(): Promise<string | undefined> {
  const cfg = vscode.workspace.getConfiguration('ordering');
  const set = settingReason((k) => cfg.get(k));
  if (set) return set;
  for (const doc of vscode.workspace.textDocuments) {
    if (claimsDocument({ languageId: doc.languageId, path: doc.uri.path, text: doc.getText() })) return `${doc.uri.path} is open`;
  }
  const folders = vscode.workspace.workspaceFolders || [];
  const search = (t: Trigger) => Promise.all(folders.map((f) =>
    vscode.workspace.findFiles(new vscode.RelativePattern(f, t.glob), SKIP_FOLDERS, t.claims ? 200 : 1).then((u) => u, () => [] as vscode.Uri[])))
    .then((l) => l.flat());
  // names alone first, all at once (a Puppet or Salt tree stops here); then, one glob at a time,
  // the candidates whose content decides
  const named = TRIGGERS.filter((t) => !t.claims);
  const hits = await Promise.all(named.map(search));
  for (let i = 0; i < named.length; i++) {
    if (hits[i].length) return `${vscode.workspace.asRelativePath(hits[i][0])} is ${named[i].what}`;
  }
  for (const t of TRIGGERS.filter((t) => t.claims)) {
    for (const uri of await search(t)) {
      if (t.claims!(await head(uri))) return `${vscode.workspace.asRelativePath(uri)} is ${t.what}`;
    }
  }
  return undefined;
}

/** Folders the server never walks (source.Workspace.Walk): dependencies and dot folders. */
const SKIP_FOLDERS = '**/{node_modules,.*}/**';

async function head(uri: vscode.Uri): Promise<string> {
  try {
    if (uri.scheme === 'file') {
      const fh = await fs.promises.open(uri.fsPath, 'r');
      try {
        const buf = Buffer.alloc(HEAD_BYTES);
        const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
        return buf.subarray(0, bytesRead).toString('utf8');
      } finally { await fh.close(); }
    }
    return Buffer.from(await vscode.workspace.fs.readFile(uri)).subarray(0, HEAD_BYTES).toString('utf8');
  } catch { return ''; }
}

/**
 * Nothing here for the server (yet): no process, no status bar item, no output channel. It starts
 * when a document it would analyse opens or is saved, or such a file appears in the workspace.
 */
function sleep(context: vscode.ExtensionContext): void {
  const docWakes = (doc: vscode.TextDocument) => {
    if (claimsDocument({ languageId: doc.languageId, path: doc.uri.path, text: doc.getText() })) void wake(context, `${doc.uri.path} was opened`);
  };
  const fileWakes = async (uri: vscode.Uri) => {
    const rel = vscode.workspace.asRelativePath(uri, false);
    if (!candidate(rel)) return;
    const text = await head(uri);
    const t = claimingTrigger(rel, () => text);
    if (t) void wake(context, `${rel} is ${t.what}`);
  };
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.{pp,sls,cf,in,rb,json,xml,yml,yaml}');
  sleeping = [
    vscode.workspace.onDidOpenTextDocument(docWakes),
    vscode.workspace.onDidSaveTextDocument(docWakes),
    watcher, watcher.onDidCreate(fileWakes), watcher.onDidChange(fileWakes),
    vscode.workspace.onDidChangeWorkspaceFolders(async () => { const r = await reasonToStart(); if (r) await wake(context, r); }),
  ];
  context.subscriptions.push({ dispose: () => { for (const d of sleeping) d.dispose(); } });
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
