#!/usr/bin/env python3
"""Real Salt 3007's top-file selection and highstate order, per minion:

    salt-highstate.py FILE_ROOT MINIONS_DIR [MINION_ID...]

MINIONS_DIR holds MINION_ID/grains.json and MINION_ID/pillar.json as
`salt-call --local grains.items|pillar.items --out json` write them. For
each minion (all of them when none is named), salt-call runs masterless with
id = MINION_ID, the grains as static grains (`grains:` of the minion
configuration, which override the core grains of this machine) and the
pillar served from a pillar root whose top gives every minion that data;
it prints

    == MINION_ID
    top ENV SLS            (state.show_top, in order)
    module.function ID NAME  (state.highstate test=True, by __run_num__)

or `refused` and Salt's errors. $SALT_EXTRA_CONF names a JSON file of more
minion options (nodegroups: the master hands its own to the minion for
top_matches, a masterless minion reads them from its configuration). Salt from source as ../shared/oracle/salt-setup
installs it: $SALT_ORACLE (default ~/salt-oracle).
"""
import json, os, subprocess, sys, tempfile

root, mdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
ids = sys.argv[3:] or sorted(x for x in os.listdir(mdir) if os.path.isdir(os.path.join(mdir, x)))
base = os.environ.get('SALT_ORACLE') or os.path.expanduser('~/salt-oracle')
src = os.path.join(base, 'salt-3007-src')
env = dict(os.environ, PYTHONPATH=src + ':' + os.path.join(base, 'pyshim'))


def load(p):
    with open(p) as f:
        v = json.load(f)
    if isinstance(v, dict) and list(v) == ['local']:
        v = v['local']
    return v


def call(w, *args):
    p = subprocess.run(['/usr/bin/python3', os.path.join(src, 'scripts', 'salt-call'), '--local', '-c',
                        os.path.join(w, 'conf'), '--out=json', '--log-level=quiet'] + list(args),
                       capture_output=True, text=True, env=env, timeout=300)
    try:
        return json.loads(p.stdout)['local'], None
    except Exception:
        return None, p.stdout + p.stderr


for mid in ids:
    grains = load(os.path.join(mdir, mid, 'grains.json'))
    pillar = load(os.path.join(mdir, mid, 'pillar.json'))
    grains.pop('id', None)
    w = tempfile.mkdtemp(prefix='salt-hs-')
    os.makedirs(os.path.join(w, 'conf'))
    os.makedirs(os.path.join(w, 'pillar'))
    with open(os.path.join(w, 'pillar', 'top.sls'), 'w') as f:
        f.write("base:\n  '*':\n    - data\n")
    with open(os.path.join(w, 'pillar', 'data.sls'), 'w') as f:
        json.dump(pillar, f)
    conf = {
        'file_client': 'local', 'master_type': 'disable', 'id': mid, 'root_dir': w,
        'cachedir': w + '/cache', 'pki_dir': w + '/pki', 'sock_dir': w + '/run',
        'pidfile': w + '/run/minion.pid', 'log_file': w + '/log/minion',
        'file_roots': {'base': [root]}, 'pillar_roots': {'base': [w + '/pillar']},
        'grains': grains,
    }
    if os.environ.get('SALT_EXTRA_CONF'):
        conf.update(load(os.environ['SALT_EXTRA_CONF']))
    with open(os.path.join(w, 'conf', 'minion'), 'w') as f:
        json.dump(conf, f)
    print('==', mid)
    top, err = call(w, 'state.show_top')
    if top is None or not isinstance(top, dict):
        print('refused')
        sys.stdout.write(str(err or top) + '\n')
    else:
        for e, sls in top.items():
            for s in sls:
                print('top', e, s)
        res, err = call(w, 'state.highstate', 'test=True')
        if not isinstance(res, dict):
            print('refused')
            sys.stdout.write('\n'.join(map(str, res if isinstance(res, list) else [err])) + '\n')
        else:
            rows = []
            for key, r in res.items():
                mod, sid, name, fun = key.split('_|-')
                rows.append((r['__run_num__'], f"{mod}.{fun} {sid} {name}"))
            for _, line in sorted(rows):
                print(line)
    sys.stdout.flush()
    subprocess.run(['rm', '-rf', w])
