base:
  'web*':
    - webserver
