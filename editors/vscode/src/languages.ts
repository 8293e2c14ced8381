// Which documents the server gets. Language ids are those of the popular syntax extensions
// (Puppet: puppet.puppet-vscode "puppet"; SaltStack: korekontrol.saltstack "sls"; CFEngine:
// azaugg.vscode-cfengine "cfengine"). Rudder exports are JSON files and Chef policies Ruby files of any
// name (Policyfile.rb, policyfiles/web.rb, a repository's base.rb) recognised by their content: the
// server's systems decide, as `ordering-lsp check` does, so every JSON and Ruby document goes to the
// server once the extension is active; the server ignores the ones no system owns.

export interface Filter { scheme: string; language?: string; pattern?: string }

export const LANGUAGE_IDS = ['puppet', 'sls', 'cfengine'] as const;

/** Chef Policyfiles (and their locks) and Rudder techniques, by path */
export const FILE_PATTERNS = [
  '**/Policyfile.rb',
  '**/*.lock.json',
  '**/metadata.xml',
  '**/technique.{yml,yaml}',
] as const;

/** Rudder API/archive exports (any JSON) and Chef policies (any Ruby), told apart by content on the server */
export const CONTENT_LANGUAGES = ['json', 'ruby'] as const;

export function documentSelector(): Filter[] {
  const sel: Filter[] = [];
  for (const scheme of ['file', 'untitled']) {
    for (const language of LANGUAGE_IDS) sel.push({ scheme, language });
  }
  for (const pattern of FILE_PATTERNS) sel.push({ scheme: 'file', pattern });
  for (const language of CONTENT_LANGUAGES) sel.push({ scheme: 'file', language });
  return sel;
}

/** Same test as VS Code's selector, for one document (used to pick the file of a view command). */
export function isOrderingDocument(doc: { languageId: string; uri: { scheme: string; path: string } }): boolean {
  if ((LANGUAGE_IDS as readonly string[]).includes(doc.languageId)) return true;
  if (doc.uri.scheme !== 'file') return false;
  const p = doc.uri.path;
  const base = p.split('/').pop() || '';
  return base === 'Policyfile.rb' || base === 'metadata.xml' || /^technique\.ya?ml$/.test(base)
    || (CONTENT_LANGUAGES as readonly string[]).includes(doc.languageId);
}
