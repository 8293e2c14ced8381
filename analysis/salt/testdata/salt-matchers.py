#!/usr/bin/python3
"""Real Salt 3007's top-file matching, many targets at once:

    salt-matchers.py CASES.json

CASES.json: {"nodegroups": {...}, "minions": [{"id", "grains", "pillar"}],
"targets": [[MATCHER, TARGET], ...]} (MATCHER "" for a target with no
`- match:` item). For every minion and target it calls the matcher Salt's
confirm_top (salt/matchers/confirm_top.py, what top_matches uses) would
call: MATCHER_match.match(TARGET), compound when no matcher is named,
nodegroup_match.match(TARGET, nodegroups); confirm_top itself loads every
matcher module again on each call, which 12,000 calls cannot afford. It
prints one line per minion: a character per target, 1 (matches), 0, or E
(the matcher raised). Salt from source as ../shared/oracle/salt-setup
installs it: $SALT_ORACLE (default ~/salt-oracle).
"""
import json, logging, os, sys

base = os.environ.get('SALT_ORACLE') or os.path.expanduser('~/salt-oracle')
sys.path[:0] = [os.path.join(base, 'salt-3007-src'), os.path.join(base, 'pyshim')]
logging.disable(logging.CRITICAL)
import salt.config, salt.loader  # noqa: E402

cases = json.load(open(sys.argv[1]))
defaults = salt.config.DEFAULT_MINION_OPTS.copy()
for m in cases['minions']:
    opts = dict(defaults)
    opts.update({'id': m['id'], 'grains': m['grains'], 'pillar': m['pillar'],
                 'nodegroups': cases.get('nodegroups', {}), 'file_client': 'local'})
    matchers = salt.loader.matchers(opts)
    out = []
    for matcher, tgt in cases['targets']:
        m = matcher or 'compound'
        try:
            if m == 'nodegroup':
                ok = matchers['nodegroup_match.match'](tgt, opts['nodegroups'])
            else:
                ok = matchers[m + '_match.match'](tgt)
        except Exception:
            ok = 'E'
        out.append('1' if ok is True or (ok not in ('E',) and bool(ok)) else ('E' if ok == 'E' else '0'))
    print(''.join(out))
