# A reference beside a collector that collects nothing is never looked up:
# Puppet relates the two sides pair by pair (puppetlabs-mysql 0.x's
# Class['mysql::config'] -> Mysql::Db <| |> with no database declared).
define mdb() { notify { "db ${title}": } }
Class['absent'] -> Mdb <| |>
Mdb <| |> -> Notify['absent']
Package <| title == 'none' |> ~> Service['absent']
notify { 'a': }
