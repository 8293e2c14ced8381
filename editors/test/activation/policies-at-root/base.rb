# The base policy every node gets; it includes the web policy...
name "base"
default_source :supermarket
include_policy "web", path: "./web.lock.json"
run_list "recipe[hardening::default]", "recipe[ntp::default]"
