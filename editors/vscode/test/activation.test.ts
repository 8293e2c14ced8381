import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { claimingTrigger, claimsDocument, globRegExp, settingReason, TRIGGERS } from '../src/activation';

const repo = path.join(__dirname, '..', '..', '..');

/** The files of a txtar archive (the Go fixtures' format). */
function txtar(text: string): Map<string, string> {
  const files = new Map<string, string>();
  let name: string | undefined;
  let body: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^-- (.+) --$/.exec(line);
    if (m) {
      if (name) files.set(name, body.join('\n'));
      name = m[1];
      body = [];
    } else if (name) body.push(line);
  }
  if (name) files.set(name, body.join('\n'));
  return files;
}

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) yield* walk(p);
    else yield p;
  }
}

/** The first file of a workspace the activation globs and content tests accept. */
function claimed(files: Map<string, string>): string | undefined {
  for (const [rel, text] of files) if (claimingTrigger(rel, () => text)) return rel;
  return undefined;
}

test('package.json activates on exactly the globs activate() checks', () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const globs = pkg.activationEvents.filter((e: string) => e.startsWith('workspaceContains:')).map((e: string) => e.slice('workspaceContains:'.length));
  assert.deepEqual(globs, TRIGGERS.map((t) => t.glob));
});

test('the glob dialect: ** is any folders (none too), * and {a,b} stay in one name', () => {
  assert.ok(globRegExp('**/*.pp').test('site.pp'));
  assert.ok(globRegExp('**/*.pp').test('site/profile/manifests/base.pp'));
  assert.ok(globRegExp('*.rb').test('base.rb'));
  assert.ok(!globRegExp('*.rb').test('lib/base.rb'));
  assert.ok(globRegExp('**/policyfiles/**/*.rb').test('policyfiles/web.rb'));
  assert.ok(globRegExp('**/policyfiles/**/*.rb').test('chef/policyfiles/prod/web.rb'));
  assert.ok(globRegExp('**/technique.{yml,yaml}').test('techniques/ntp/technique.yaml'));
  assert.ok(!globRegExp('**/*.cf').test('main.cf.orig'));
});

// Every fixture of the analysis packages that has an order is a workspace the server analyses: the
// extension must start there without a file being opened (the globs find one of its files, and its
// first bytes pass the content test), whatever the files are named.
test('every analysed fixture workspace starts the server', () => {
  let n = 0;
  const asleep: string[] = [];
  for (const sys of ['chef', 'rudder', 'cfengine', 'salt', 'puppet']) {
    for (const f of walk(path.join(repo, 'analysis', sys, 'testdata'))) {
      if (!f.endsWith('.txtar')) continue;
      const text = readFileSync(f, 'utf8');
      const files = txtar(text);
      const order = files.get('want/order');
      if (!order || order.trim() === '') continue;
      for (const k of [...files.keys()]) if (k.startsWith('want/')) files.delete(k);
      n++;
      // the archive's comment holds its settings (`setting: key=value`)
      const settings = new Map([...text.split(/\n-- /)[0].matchAll(/^setting: ([\w.]+)=(.*)$/gm)].map((m) => [m[1], m[2]]));
      if (!claimed(files) && !settingReason((k) => settings.get(k))) asleep.push(`${path.relative(repo, f)}: ${[...files.keys()].join(' ')}`);
    }
  }
  assert.ok(n > 100, `only ${n} fixtures`);
  assert.deepEqual(asleep, []);
});

test("a repository of Chef policies at its root starts the server (open16h/snohio_policyfiles' layout)", () => {
  const base = "name 'base'\ndefault_source :supermarket\nrun_list 'chef-client::default'\n";
  assert.equal(claimed(new Map([['README.md', '# policyfiles'], ['base.rb', base], ['polpush.ps1', 'chef install']])), 'base.rb');
  const lock = '{\n  "revision_id": "abc",\n  "name": "web",\n  "run_list": [],\n  "cookbook_locks": {}\n}';
  assert.equal(claimed(new Map([['web.lock.json', lock]])), 'web.lock.json');
  // a policy that only includes others
  assert.ok(claimed(new Map([['policies/app.rb', "name 'app'\ninclude_policy 'base', path: '../base.lock.json'\n"]])));
});

// Workspaces the globs match by name whose content the server never analyses: the extension is
// active there but starts nothing (no process, no status bar item).
test('Ruby, .NET and Postfix projects do not start the server', () => {
  const sleeps: Record<string, Map<string, string>> = {
    'a Chef cookbook': new Map([
      ['metadata.rb', "name 'nginx'\nversion '1.0.0'\ndepends 'apt'\n"],
      ['recipes/default.rb', "package 'nginx'\nservice 'nginx' do\n  action [:enable, :start]\nend\n"],
      ['attributes/default.rb', "default['nginx']['port'] = 80\n"],
    ]),
    'a Rails app with Pundit policies': new Map([
      ['app/policies/application_policy.rb', 'class ApplicationPolicy\n  def initialize(user, record)\n  end\nend\n'],
      ['config/routes.rb', 'Rails.application.routes.draw do\nend\n'],
    ]),
    'a Ruby script at the root': new Map([['build.rb', "require 'json'\nputs JSON.dump({})\n"]]),
    'a .NET project': new Map([['src/App/packages.lock.json', '{\n  "version": 1,\n  "dependencies": {}\n}']]),
    'a Postfix and SpamAssassin configuration': new Map([
      ['postfix/main.cf', 'myhostname = mail.example.com\nrelayhost = [smtp.example.com]:587\n'],
      ['postfix/master.cf', 'smtp      inet  n       -       y       -       -       smtpd\n  -o content_filter=${nexthop}\n'],
      ['spamassassin/local.cf', 'body LOCAL_DEMO /viagra/i\nscore LOCAL_DEMO 2.0\n'],
    ]),
    'an ESLint configuration in rules/': new Map([['rules/base.json', '{ "rules": { "semi": "error" } }']]),
  };
  for (const [what, files] of Object.entries(sleeps)) assert.equal(claimed(files), undefined, what);
});

test('an open document wakes the extension by content wherever it is', () => {
  const doc = (languageId: string, p: string, text: string) => claimsDocument({ languageId, path: p, text });
  assert.equal(doc('ruby', '/repo/chef/base.rb', "name 'base'\nrun_list 'x'\n"), true); // a folder no glob names
  assert.equal(doc('ruby', '/repo/lib/x.rb', 'module X; end\n'), false);
  assert.equal(doc('puppet', '/repo/x.pp', ''), true);
  assert.equal(doc('sls', '/srv/salt/x.sls', ''), true);
  assert.equal(doc('cfengine', '/etc/postfix/main.cf', 'myhostname = a\n'), false);
  assert.equal(doc('cfengine', '/repo/new.cf', ''), true);
  assert.equal(doc('cfengine', '/repo/promises.cf', 'bundle agent main\n{\n}\n'), true);
  assert.equal(doc('json', '/repo/Policyfile.lock.json', '{"revision_id": "a", "cookbook_locks": {}}'), true);
  assert.equal(doc('json', '/repo/package.json', '{"name": "x"}'), false);
});
