# node 'default' (quoted) is the default node, as the bare word is
# (JSP-GIHS/control-repo).
node 'default' {
  notify { 'quoted default': }
}
