# The node picker (status bar "Node: ...") decides this branch: all nodes run both packages.
if $facts['os']['family'] == 'Debian' {
  package { 'apache2': }
} else {
  package { 'httpd': }
}
notify { 'web': }
