# if/elsif/else, case and a selector choose which resources exist and what
# they point at; facts are not used (only literal variables), so the choice
# is static.
$flavor = 'b'
if $flavor == 'a' { notify { 'if-a': } }
elsif $flavor == 'b' { notify { 'if-b': } }
else { notify { 'if-else': } }
case $flavor {
  'a', 'c': { notify { 'case-ac': } }
  default:  { notify { 'case-default': } }
}
$target = $flavor ? { 'b' => 'sel-b', default => 'sel-other' }
notify { 'sel-b': }
notify { 'chooser': before => Notify[$target] }
unless $flavor == 'b' { notify { 'unless-body': } }
