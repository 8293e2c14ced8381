# Parses every .sls/.jinja/.j2 file under a directory with the real Jinja
# (python3-jinja2) and prints OK or ERR with Jinja's line and message, one
# file per line: the oracle TestJinjaOracle compares the grammar with.
#   python3 parser/salt/testdata/jinja-oracle.py DIR > oracle.txt
import sys, os, jinja2
from jinja2 import nodes
from jinja2.ext import Extension
class SaltTags(Extension):
    # Salt's serializer tags, enough to parse: load_* ... endload, import_* 'x' as y
    tags = {"load_yaml", "load_json", "load_text", "import_yaml", "import_json", "import_text", "profile"}
    def parse(self, parser):
        tok = next(parser.stream)
        if tok.value.startswith("import_"):
            # salt.utils.jinja parses these with parser.parse_import()
            parser.parse_expression(); parser.stream.expect("name:as"); parser.stream.expect("name")
            if parser.stream.current.test_any("name:with", "name:without") and parser.stream.look().test("name:context"):
                next(parser.stream); next(parser.stream)
            return nodes.Output([])
        if tok.value == "profile":
            parser.stream.expect("name:as"); parser.parse_expression()
            body = parser.parse_statements(("name:endprofile",), drop_needle=True)
            return body
        parser.stream.expect("name:as"); parser.stream.expect("name")
        body = parser.parse_statements(("name:endload",), drop_needle=True)
        return nodes.Output([])
env = jinja2.Environment(extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols", SaltTags])
root = sys.argv[1]
for dp, dn, fn in os.walk(root):
    for f in sorted(fn):
        if not (f.endswith(".sls") or f.endswith(".jinja") or f.endswith(".j2")): continue
        p = os.path.join(dp, f)
        try:
            src = open(p, encoding="utf-8", errors="replace").read()
            env.parse(src)
            print(f"OK\t{p}")
        except jinja2.TemplateSyntaxError as e:
            print(f"ERR\t{p}\t{e.lineno}\t{e.message}")
