# subscribe => an undeclared resource inside an array of otherwise valid
# references: the error names only the missing one and parameter 'subscribe'.
notify { 'a': }
exec { 'b': command => '/bin/true', refreshonly => true, subscribe => [Notify['a'], File['/nope']] }
