# @@ exported resources in `puppet apply` (no storeconfigs): they act as virtual
# resources. The export collector <<| |>> is ignored (warning), so 'exp-a' is
# absent; a plain collector <| |> does realize 'exp-b'; 'exp-never' is absent.
@@notify { 'exp-a': tag => 'a' }
@@notify { 'exp-b': tag => 'b' }
@@notify { 'exp-never': }
notify { 'plain': }
Notify <<| tag == 'a' |>>
Notify <| tag == 'b' |>
