# String interpolation in titles and in reference titles: "${x}-1", "$x-2",
# "${h['k']}"; the reference Notify["${x}-1"] finds the interpolated title.
$x = 'pre'
$h = { 'k' => 'from-hash' }
notify { "${x}-1": }
notify { "$x-2": before => Notify["${x}-1"] }
notify { "${h['k']}": require => Notify["${x}-1"] }
notify { 'single-quoted-${x}': }
