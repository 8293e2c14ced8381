import * as vscode from 'vscode';
import type { Range } from './protocol';

/** Opens uri and puts the cursor at the start of range (the declaration), range visible. */
export async function reveal(uri: string, range: Range | undefined, column?: vscode.ViewColumn): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  const r = range ? new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character) : undefined;
  const editor = await vscode.window.showTextDocument(doc, {
    viewColumn: column ?? vscode.ViewColumn.One,
    selection: r ? new vscode.Range(r.start, r.start) : undefined,
    preserveFocus: false,
  });
  if (r) editor.revealRange(r, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
