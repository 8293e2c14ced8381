# A web server: the package, its configuration, the service, a renewal job.
nginx:
  pkg.installed: []
  service.running:
    - enable: True
    - require:
      - pkg: nginx
    - watch:
      - file: /etc/nginx/nginx.conf

/etc/nginx/nginx.conf:
  file.managed:
    - source: salt://webserver/files/nginx.conf
    - require:
      - pkg: nginx
      # the configuration waits for the service that watches it: a cycle
      - service: nginx

renew-certificates:
  cmd.run:
    - name: certbot renew --quiet
    - onchanges:
      # nothing manages this file: Salt refuses the run
      - file: /etc/nginx/sites-enabled/default
