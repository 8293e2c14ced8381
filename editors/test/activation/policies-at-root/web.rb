# ...which includes base again: an include loop chef-cli does not detect.
name "web"
default_source :supermarket
include_policy "base", path: "./base.lock.json"
run_list "recipe[nginx::default]"
