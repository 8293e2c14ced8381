prod_b_0:
  test.nop: []
prod_b_1:
  test.nop: []
