# The same arrows once the collector collects something: the reference is
# looked up for each pair, and is missing.
define mdb() { notify { "db ${title}": } }
Class['absent'] -> Mdb <| |>
mdb { 'x': }
