prod_a_0:
  test.nop: []
prod_a_1:
  test.nop: []
