base_a_0:
  test.nop: []
base_a_1:
  test.nop: []
