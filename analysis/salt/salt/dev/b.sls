dev_b_0:
  test.nop: []
