# Iteration with each() producing resources: they enter the catalog in
# iteration order at the point of the each() call, with relationships built
# from the loop variable.
notify { 'before-loop': }
['x', 'y', 'z'].each |$n| {
  notify { "item-${n}": }
}
notify { 'after-loop': }
$h = { 'p' => 'q', 'q' => 'after-loop' }
$h.each |$k, $v| { notify { "pair-${k}": before => Notify[$v] } }
notify { 'q': }
