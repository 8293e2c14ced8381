base_b_0:
  test.nop: []
base_b_1:
  test.nop: []
