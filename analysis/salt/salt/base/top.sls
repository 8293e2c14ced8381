base:
  'db*':
    - b
    - b
  'web*':
    - b
    - a
