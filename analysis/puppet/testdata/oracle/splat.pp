# Attribute splat `* => $hash` passing metaparameters from a hash: 'b' gets
# require => Notify['c'] through the splat.
$opts = { 'require' => Notify['c'], 'message' => 'via splat' }
notify { 'a': }
notify { 'b': * => $opts }
notify { 'c': }
