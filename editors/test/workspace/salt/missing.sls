# Salt 3007 fails state 'a' at run time: its requisite names no state.
a:
  test.succeed_without_changes:
    - require:
      - test: does_not_exist

b:
  test.succeed_without_changes:
    - require:
      - test: a
