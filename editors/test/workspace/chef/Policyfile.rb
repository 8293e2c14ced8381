# chef install fails: the included policy's lock is not there.
name "app"
include_policy "gone", path: "nowhere/gone.lock.json"
run_list "app"
