// "Why does this run before that?" and "What does my change do to the run?": the server's
// ordering/why request and the `ordering-lsp diff` command, in the editor.
import * as cp from 'child_process';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { reveal } from './reveal';

interface WhyEdge { from: string; to: string; reason: string; location: { uri: string; range: any } }
interface WhyAnswer { relation: 'before' | 'after' | 'independent'; summary: string; path: WhyEdge[] }

interface WhyCandidates { this: string; candidates: { ref: string; detail: string }[] }

/** Asks for the other declaration: first the candidates the server ranks from the cursor's
 * declaration (what it waits for and what waits for it, nearest first), then, as the user
 * types, workspace symbols too; then lists the chain. */
export async function why(getClient: () => LanguageClient | undefined): Promise<void> {
  const client = getClient();
  const editor = vscode.window.activeTextEditor;
  if (!client || !editor) {
    void vscode.window.showInformationMessage('Ordering: put the cursor on a declaration in a Puppet, Salt, CFEngine, Chef or Rudder file first.');
    return;
  }
  const at = {
    textDocument: { uri: editor.document.uri.toString() },
    position: { line: editor.selection.active.line, character: editor.selection.active.character },
  };
  let ranked: WhyCandidates;
  try {
    ranked = await client.sendRequest('ordering/whyCandidates', at);
  } catch (e) {
    void vscode.window.showWarningMessage(`Ordering: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  const pick = vscode.window.createQuickPick();
  pick.title = `Why does ${ranked.this} run before or after…`;
  pick.placeholder = `pick or type a resource, state, promise (related to ${ranked.this} first)`;
  pick.matchOnDescription = true;
  const first = ranked.candidates.map((c) => ({ label: c.ref, description: c.detail }));
  pick.items = first;
  let seq = 0;
  pick.onDidChangeValue(async (q) => {
    const mine = ++seq;
    if (!q) { pick.items = first; return; }
    const syms: { name: string; containerName?: string }[] = await client.sendRequest('workspace/symbol', { query: q });
    if (mine !== seq) return;
    const known = new Set(first.map((i) => i.label));
    pick.items = [...first, ...syms.filter((s) => !known.has(s.name)).slice(0, 100).map((s) => ({ label: s.name, description: s.containerName }))];
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
    ans = await client.sendRequest('ordering/why', { ...at, other });
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
