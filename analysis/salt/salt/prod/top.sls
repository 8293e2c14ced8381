base:
  'db*':
    - b
    - a
dev:
  'db*':
    - a
  '*':
    - b
  'web*':
    - a
prod:
  'roles:web':
    - match: grain
    - b
    - b
  'web*':
    - a
