// "Why does this run before that?" and "What does my change do to the run?": the server's
// ordering/why request and the `ordering-lsp diff` command, in the editor.
import * as cp from 'child_process';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { reveal } from './reveal';

interface WhyEdge { from: string; to: string; reason: string; location: { uri: string; range: any } }
interface WhyAnswer { relation: 'before' | 'after' | 'independent'; summary: string; path: WhyEdge[] }

/** Asks for the other declaration (workspace symbols as the user types), then lists the chain. */
export async function why(getClient: () => LanguageClient | undefined): Promise<void> {
  const client = getClient();
  const editor = vscode.window.activeTextEditor;
  if (!client || !editor) {
    void vscode.window.showInformationMessage('Ordering: put the cursor on a declaration in a Puppet, Salt, CFEngine, Chef or Rudder file first.');
    return;
  }
  const pick = vscode.window.createQuickPick();
  pick.placeholder = 'Why does this run before… (type a resource, state, promise)';
  let seq = 0;
  pick.onDidChangeValue(async (q) => {
    const mine = ++seq;
    const syms: { name: string; containerName?: string }[] = await client.sendRequest('workspace/symbol', { query: q });
    if (mine === seq) pick.items = syms.slice(0, 100).map((s) => ({ label: s.name, description: s.containerName }));
  });
  const other = await new Promise<string | undefined>((resolve) => {
    pick.onDidAccept(() => { resolve(pick.selectedItems[0]?.label ?? pick.value); pick.hide(); });
    pick.onDidHide(() => resolve(undefined));
    pick.show();
  });
  pick.dispose();
  if (!other) return;
  let ans: WhyAnswer;
  try {
    ans = await client.sendRequest('ordering/why', {
      textDocument: { uri: editor.document.uri.toString() },
      position: { line: editor.selection.active.line, character: editor.selection.active.character },
      other,
    });
  } catch (e) {
    void vscode.window.showWarningMessage(`Ordering: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  if (ans.path.length === 0) {
    void vscode.window.showInformationMessage(`Ordering: ${ans.summary}`);
    return;
  }
  const chosen = await vscode.window.showQuickPick(
    ans.path.map((e) => ({ label: `${e.from} → ${e.to}`, description: e.reason, edge: e })),
    { title: ans.summary, placeHolder: 'each relationship in the chain: pick one to go to where it is written' },
  );
  if (chosen) await reveal(chosen.edge.location.uri, chosen.edge.location.range);
}

/** Runs `ordering-lsp diff --base REV --format markdown` in the workspace and shows the report. */
export async function diff(serverPath: () => string | undefined): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const server = serverPath();
  if (!folder || !server) {
    void vscode.window.showInformationMessage('Ordering: open a folder in a git repository, with the server available.');
    return;
  }
  const base = await vscode.window.showInputBox({ prompt: 'Compare the working tree with which git revision?', value: 'HEAD' });
  if (!base) return;
  const out = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Ordering: comparing with ${base}…` },
    () => new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      cp.execFile(server, ['diff', '--base', base, '--format', 'markdown'], { cwd: folder, maxBuffer: 64 << 20 }, (err, stdout, stderr) =>
        resolve({ code: err && typeof (err as any).code === 'number' ? (err as any).code : err ? 2 : 0, stdout, stderr }));
    }),
  );
  if (out.code === 2) {
    void vscode.window.showWarningMessage(`Ordering: ${out.stderr.trim() || 'diff failed'}`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: out.stdout });
  await vscode.commands.executeCommand('markdown.showPreview', doc.uri);
}
