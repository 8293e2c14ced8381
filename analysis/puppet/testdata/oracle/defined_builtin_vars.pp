# defined('$facts') and defined('$trusted') hold on every node (Puppet 4+),
# so a control repository's guard around its top-scope setup is always
# taken (example42/psick's site.pp).
if defined('$facts') and defined('$trusted') {
  notify { 'setup': }
} else {
  notify { 'never': }
}
notify { 'last': }
