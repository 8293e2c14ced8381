import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { INSTALL_MODULES_COMMAND, installFailure, installRefusal } from '../src/install';

test('the install runs only in a trusted workspace (r10k evaluates the Puppetfile as Ruby)', () => {
  assert.equal(installRefusal(true), undefined);
  assert.match(installRefusal(false) ?? '', /Trust this workspace first/);
});

test('a failed install: its first line in the notification, the whole error in the output', () => {
  const err = new Error('/usr/bin/r10k puppetfile install --puppetfile /w/Puppetfile -v in /w: exit status 1:\nERROR -> Could not resolve desired ref');
  const f = installFailure(err);
  assert.equal(f.summary, '/usr/bin/r10k puppetfile install --puppetfile /w/Puppetfile -v in /w: exit status 1:');
  assert.match(f.detail, /Could not resolve desired ref$/);
  assert.equal(installFailure({ message: 'neither r10k nor g10k is on PATH' }).summary, 'neither r10k nor g10k is on PATH');
});

test('package.json contributes the command, in the palette of trusted workspaces only', () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const cmd = pkg.contributes.commands.find((c: { command: string }) => c.command === INSTALL_MODULES_COMMAND);
  assert.ok(cmd);
  assert.equal(`${cmd.category}: ${cmd.title}`, 'Ordering: Install Puppetfile Modules');
  const palette = pkg.contributes.menus.commandPalette.find((m: { command: string }) => m.command === INSTALL_MODULES_COMMAND);
  assert.equal(palette?.when, 'isWorkspaceTrusted');
});
