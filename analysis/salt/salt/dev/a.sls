dev_a_0:
  test.nop: []
dev_a_1:
  test.nop: []
