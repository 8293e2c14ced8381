base:
  '*':
    - a
dev:
  'db*':
    - b
    - a
  'web*':
    - b
