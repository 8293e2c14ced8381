import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { documentSelector, isOrderingDocument, LANGUAGE_IDS } from '../src/languages';

const doc = (languageId: string, path: string, scheme = 'file') => ({ languageId, uri: { scheme, path } });

test('the selector covers the three language ids (files and untitled) and the Chef/Rudder file patterns', () => {
  const sel = documentSelector();
  for (const language of ['puppet', 'sls', 'cfengine']) {
    assert.ok(sel.some((f) => f.language === language && f.scheme === 'file'), language);
    assert.ok(sel.some((f) => f.language === language && f.scheme === 'untitled'), language);
  }
  assert.ok(sel.some((f) => f.pattern === '**/Policyfile.rb'));
  assert.ok(sel.some((f) => f.pattern === '**/*.lock.json'));
  assert.ok(sel.some((f) => f.language === 'json' && f.scheme === 'file'));
  assert.ok(sel.some((f) => f.language === 'ruby' && f.scheme === 'file')); // policies named base.rb, policyfiles/web.rb
});

test('documents the views accept', () => {
  assert.equal(isOrderingDocument(doc('puppet', '/ws/site.pp')), true);
  assert.equal(isOrderingDocument(doc('sls', '/srv/salt/top.sls')), true);
  assert.equal(isOrderingDocument(doc('cfengine', '/var/cfengine/inputs/promises.cf')), true);
  assert.equal(isOrderingDocument(doc('ruby', '/chef/Policyfile.rb')), true);
  assert.equal(isOrderingDocument(doc('json', '/chef/Policyfile.lock.json')), true);
  assert.equal(isOrderingDocument(doc('json', '/exports/rules/r1.json')), true); // Rudder: the server reads the content
  assert.equal(isOrderingDocument(doc('xml', '/techniques/ntp/1.0/metadata.xml')), true);
  assert.equal(isOrderingDocument(doc('yaml', '/techniques/ntp/technique.yml')), true);
  assert.equal(isOrderingDocument(doc('ruby', '/chef/policyfiles/web.rb')), true); // Chef: the server reads the content
  assert.equal(isOrderingDocument(doc('ruby', '/chef/base.rb')), true);
  assert.equal(isOrderingDocument(doc('ruby', '/app/Gemfile.rb', 'untitled')), false);
  assert.equal(isOrderingDocument(doc('yaml', '/app/docker-compose.yml')), false);
});

test('package.json contributes and activates on the same language ids', () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const ids = pkg.contributes.languages.map((l: { id: string }) => l.id);
  assert.deepEqual(ids, [...LANGUAGE_IDS]);
  for (const id of LANGUAGE_IDS) assert.ok(pkg.activationEvents.includes(`onLanguage:${id}`), id);
  for (const c of ['ordering.showGraph', 'ordering.showOrder']) {
    assert.ok(pkg.contributes.commands.some((x: { command: string }) => x.command === c), c);
  }
  const titles = pkg.contributes.commands.map((x: { category: string; title: string }) => `${x.category}: ${x.title}`);
  assert.ok(titles.includes('Ordering: Show Execution Graph'));
  assert.ok(titles.includes('Ordering: Show Execution Order'));
});

test('each language has a TextMate grammar for the first paint, and the relation modifier is declared', () => {
  const root = path.join(__dirname, '..');
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  for (const id of LANGUAGE_IDS) {
    const g = pkg.contributes.grammars.find((x: { language: string }) => x.language === id);
    assert.ok(g, `no grammar for ${id}`);
    const grammar = JSON.parse(readFileSync(path.join(root, g.path), 'utf8'));
    assert.equal(grammar.scopeName, g.scopeName, id);
    assert.ok(grammar.patterns.length > 0, id);
  }
  // the server's legend has this modifier (analysis.ModRelation); VS Code themes colour it
  // through the scope it maps to
  assert.ok(pkg.contributes.semanticTokenModifiers.some((m: { id: string }) => m.id === 'relation'));
  assert.ok(pkg.contributes.semanticTokenScopes.some((s: { scopes: Record<string, string[]> }) => s.scopes['*.relation']));
});
