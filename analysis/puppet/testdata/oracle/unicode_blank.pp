# Every Unicode space separator is a blank between tokens (Puppet's lexer
# skips [[:blank:]], Ruby's class over UTF-8): an en space after an attribute
# name (jasy125/control-repo), a no-break, an ideographic and a narrow space.
notify { 'a':
  message => 'x',
}
notify { 'b':　require => Notify['a'] }
 notify { 'c': before => Notify['a'] }
