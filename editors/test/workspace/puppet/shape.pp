# The shape of puppetlabs-apache's init.pp for the graph test: one class that installs the
# package, configures it and runs the service, and 92 module classes, each with its .load
# and .conf files ordered after the package and refreshing the service. Generated; the graph
# folds each class into one node: about 100 nodes and 330 relationships.
class apache_shape {
  package { 'httpd': ensure => installed }
  file { '/etc/apache2': ensure => directory, require => Package['httpd'] }
  file { '/etc/apache2/mods-available': ensure => directory }
  file { '/etc/apache2/mods-enabled': ensure => directory }
  file { '/etc/apache2/ports.conf': content => 'Listen 80', notify => Service['httpd'] }
  service { 'httpd': ensure => running }
  include apache_shape::mod::alias
  include apache_shape::mod::auth_basic
  include apache_shape::mod::authn_core
  include apache_shape::mod::authn_file
  include apache_shape::mod::authz_core
  include apache_shape::mod::authz_host
  include apache_shape::mod::authz_user
  include apache_shape::mod::autoindex
  include apache_shape::mod::cache
  include apache_shape::mod::cgi
  include apache_shape::mod::cgid
  include apache_shape::mod::dav
  include apache_shape::mod::dav_fs
  include apache_shape::mod::deflate
  include apache_shape::mod::dir
  include apache_shape::mod::env
  include apache_shape::mod::expires
  include apache_shape::mod::ext_filter
  include apache_shape::mod::filter
  include apache_shape::mod::headers
  include apache_shape::mod::include
  include apache_shape::mod::info
  include apache_shape::mod::ldap
  include apache_shape::mod::log_config
  include apache_shape::mod::mime
  include apache_shape::mod::mime_magic
  include apache_shape::mod::negotiation
  include apache_shape::mod::proxy
  include apache_shape::mod::proxy_http
  include apache_shape::mod::proxy_balancer
  include apache_shape::mod::reqtimeout
  include apache_shape::mod::rewrite
  include apache_shape::mod::setenvif
  include apache_shape::mod::socache_shmcb
  include apache_shape::mod::ssl
  include apache_shape::mod::status
  include apache_shape::mod::suexec
  include apache_shape::mod::userdir
  include apache_shape::mod::version
  include apache_shape::mod::vhost_alias
  include apache_shape::mod::xsendfile
  include apache_shape::mod::apreq2
  include apache_shape::mod::auth_cas
  include apache_shape::mod::auth_mellon
  include apache_shape::mod::authn_dbd
  include apache_shape::mod::cluster
  include apache_shape::mod::dumpio
  include apache_shape::mod::geoip
  include apache_shape::mod::http2
  include apache_shape::mod::jk
  include apache_shape::mod::lbmethod_byrequests
  include apache_shape::mod::lua
  include apache_shape::mod::md
  include apache_shape::mod::nss
  include apache_shape::mod::pagespeed
  include apache_shape::mod::passenger
  include apache_shape::mod::perl
  include apache_shape::mod::php
  include apache_shape::mod::prefork
  include apache_shape::mod::event
  include apache_shape::mod::worker
  include apache_shape::mod::itk
  include apache_shape::mod::peruser
  include apache_shape::mod::python
  include apache_shape::mod::remoteip
  include apache_shape::mod::security
  include apache_shape::mod::shib
  include apache_shape::mod::speling
  include apache_shape::mod::wsgi
  include apache_shape::mod::fcgid
  include apache_shape::mod::fastcgi
  include apache_shape::mod::disk_cache
  include apache_shape::mod::mem_cache
  include apache_shape::mod::actions
  include apache_shape::mod::asis
  include apache_shape::mod::auth_digest
  include apache_shape::mod::auth_kerb
  include apache_shape::mod::authnz_ldap
  include apache_shape::mod::authnz_pam
  include apache_shape::mod::dbd
  include apache_shape::mod::evasive
  include apache_shape::mod::intercept_form_submit
  include apache_shape::mod::lookup_identity
  include apache_shape::mod::macro
  include apache_shape::mod::mpm_event
  include apache_shape::mod::mpm_worker
  include apache_shape::mod::data
  include apache_shape::mod::unique_id
  include apache_shape::mod::usertrack
  include apache_shape::mod::watchdog
  include apache_shape::mod::buffer
  include apache_shape::mod::request
}

class apache_shape::mod::alias {
  file { 'alias.load': path => '/etc/apache2/mods-available/alias.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'alias.conf': path => '/etc/apache2/mods-available/alias.conf', require => File['alias.load'], notify => Service['httpd'] }
}
class apache_shape::mod::auth_basic {
  file { 'auth_basic.load': path => '/etc/apache2/mods-available/auth_basic.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'auth_basic.conf': path => '/etc/apache2/mods-available/auth_basic.conf', require => File['auth_basic.load'], notify => Service['httpd'] }
}
class apache_shape::mod::authn_core {
  file { 'authn_core.load': path => '/etc/apache2/mods-available/authn_core.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'authn_core.conf': path => '/etc/apache2/mods-available/authn_core.conf', require => File['authn_core.load'], notify => Service['httpd'] }
}
class apache_shape::mod::authn_file {
  file { 'authn_file.load': path => '/etc/apache2/mods-available/authn_file.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'authn_file.conf': path => '/etc/apache2/mods-available/authn_file.conf', require => File['authn_file.load'], notify => Service['httpd'] }
  File['authn_core.load'] -> File['authn_file.load']
}
class apache_shape::mod::authz_core {
  file { 'authz_core.load': path => '/etc/apache2/mods-available/authz_core.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'authz_core.conf': path => '/etc/apache2/mods-available/authz_core.conf', require => File['authz_core.load'], notify => Service['httpd'] }
}
class apache_shape::mod::authz_host {
  file { 'authz_host.load': path => '/etc/apache2/mods-available/authz_host.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'authz_host.conf': path => '/etc/apache2/mods-available/authz_host.conf', require => File['authz_host.load'], notify => Service['httpd'] }
}
class apache_shape::mod::authz_user {
  file { 'authz_user.load': path => '/etc/apache2/mods-available/authz_user.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'authz_user.conf': path => '/etc/apache2/mods-available/authz_user.conf', require => File['authz_user.load'], notify => Service['httpd'] }
  File['authz_host.load'] -> File['authz_user.load']
}
class apache_shape::mod::autoindex {
  file { 'autoindex.load': path => '/etc/apache2/mods-available/autoindex.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'autoindex.conf': path => '/etc/apache2/mods-available/autoindex.conf', require => File['autoindex.load'], notify => Service['httpd'] }
}
class apache_shape::mod::cache {
  file { 'cache.load': path => '/etc/apache2/mods-available/cache.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'cache.conf': path => '/etc/apache2/mods-available/cache.conf', require => File['cache.load'], notify => Service['httpd'] }
}
class apache_shape::mod::cgi {
  file { 'cgi.load': path => '/etc/apache2/mods-available/cgi.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'cgi.conf': path => '/etc/apache2/mods-available/cgi.conf', require => File['cgi.load'], notify => Service['httpd'] }
  File['cache.load'] -> File['cgi.load']
}
class apache_shape::mod::cgid {
  file { 'cgid.load': path => '/etc/apache2/mods-available/cgid.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'cgid.conf': path => '/etc/apache2/mods-available/cgid.conf', require => File['cgid.load'], notify => Service['httpd'] }
}
class apache_shape::mod::dav {
  file { 'dav.load': path => '/etc/apache2/mods-available/dav.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'dav.conf': path => '/etc/apache2/mods-available/dav.conf', require => File['dav.load'], notify => Service['httpd'] }
}
class apache_shape::mod::dav_fs {
  file { 'dav_fs.load': path => '/etc/apache2/mods-available/dav_fs.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'dav_fs.conf': path => '/etc/apache2/mods-available/dav_fs.conf', require => File['dav_fs.load'], notify => Service['httpd'] }
  File['dav.load'] -> File['dav_fs.load']
}
class apache_shape::mod::deflate {
  file { 'deflate.load': path => '/etc/apache2/mods-available/deflate.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'deflate.conf': path => '/etc/apache2/mods-available/deflate.conf', require => File['deflate.load'], notify => Service['httpd'] }
}
class apache_shape::mod::dir {
  file { 'dir.load': path => '/etc/apache2/mods-available/dir.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'dir.conf': path => '/etc/apache2/mods-available/dir.conf', require => File['dir.load'], notify => Service['httpd'] }
}
class apache_shape::mod::env {
  file { 'env.load': path => '/etc/apache2/mods-available/env.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'env.conf': path => '/etc/apache2/mods-available/env.conf', require => File['env.load'], notify => Service['httpd'] }
  File['dir.load'] -> File['env.load']
}
class apache_shape::mod::expires {
  file { 'expires.load': path => '/etc/apache2/mods-available/expires.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'expires.conf': path => '/etc/apache2/mods-available/expires.conf', require => File['expires.load'], notify => Service['httpd'] }
}
class apache_shape::mod::ext_filter {
  file { 'ext_filter.load': path => '/etc/apache2/mods-available/ext_filter.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'ext_filter.conf': path => '/etc/apache2/mods-available/ext_filter.conf', require => File['ext_filter.load'], notify => Service['httpd'] }
}
class apache_shape::mod::filter {
  file { 'filter.load': path => '/etc/apache2/mods-available/filter.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'filter.conf': path => '/etc/apache2/mods-available/filter.conf', require => File['filter.load'], notify => Service['httpd'] }
  File['ext_filter.load'] -> File['filter.load']
}
class apache_shape::mod::headers {
  file { 'headers.load': path => '/etc/apache2/mods-available/headers.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'headers.conf': path => '/etc/apache2/mods-available/headers.conf', require => File['headers.load'], notify => Service['httpd'] }
}
class apache_shape::mod::include {
  file { 'include.load': path => '/etc/apache2/mods-available/include.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'include.conf': path => '/etc/apache2/mods-available/include.conf', require => File['include.load'], notify => Service['httpd'] }
}
class apache_shape::mod::info {
  file { 'info.load': path => '/etc/apache2/mods-available/info.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'info.conf': path => '/etc/apache2/mods-available/info.conf', require => File['info.load'], notify => Service['httpd'] }
  File['include.load'] -> File['info.load']
}
class apache_shape::mod::ldap {
  file { 'ldap.load': path => '/etc/apache2/mods-available/ldap.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'ldap.conf': path => '/etc/apache2/mods-available/ldap.conf', require => File['ldap.load'], notify => Service['httpd'] }
}
class apache_shape::mod::log_config {
  file { 'log_config.load': path => '/etc/apache2/mods-available/log_config.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'log_config.conf': path => '/etc/apache2/mods-available/log_config.conf', require => File['log_config.load'], notify => Service['httpd'] }
}
class apache_shape::mod::mime {
  file { 'mime.load': path => '/etc/apache2/mods-available/mime.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'mime.conf': path => '/etc/apache2/mods-available/mime.conf', require => File['mime.load'], notify => Service['httpd'] }
  File['log_config.load'] -> File['mime.load']
}
class apache_shape::mod::mime_magic {
  file { 'mime_magic.load': path => '/etc/apache2/mods-available/mime_magic.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'mime_magic.conf': path => '/etc/apache2/mods-available/mime_magic.conf', require => File['mime_magic.load'], notify => Service['httpd'] }
}
class apache_shape::mod::negotiation {
  file { 'negotiation.load': path => '/etc/apache2/mods-available/negotiation.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'negotiation.conf': path => '/etc/apache2/mods-available/negotiation.conf', require => File['negotiation.load'], notify => Service['httpd'] }
}
class apache_shape::mod::proxy {
  file { 'proxy.load': path => '/etc/apache2/mods-available/proxy.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'proxy.conf': path => '/etc/apache2/mods-available/proxy.conf', require => File['proxy.load'], notify => Service['httpd'] }
  File['negotiation.load'] -> File['proxy.load']
}
class apache_shape::mod::proxy_http {
  file { 'proxy_http.load': path => '/etc/apache2/mods-available/proxy_http.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'proxy_http.conf': path => '/etc/apache2/mods-available/proxy_http.conf', require => File['proxy_http.load'], notify => Service['httpd'] }
}
class apache_shape::mod::proxy_balancer {
  file { 'proxy_balancer.load': path => '/etc/apache2/mods-available/proxy_balancer.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'proxy_balancer.conf': path => '/etc/apache2/mods-available/proxy_balancer.conf', require => File['proxy_balancer.load'], notify => Service['httpd'] }
}
class apache_shape::mod::reqtimeout {
  file { 'reqtimeout.load': path => '/etc/apache2/mods-available/reqtimeout.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'reqtimeout.conf': path => '/etc/apache2/mods-available/reqtimeout.conf', require => File['reqtimeout.load'], notify => Service['httpd'] }
  File['proxy_balancer.load'] -> File['reqtimeout.load']
}
class apache_shape::mod::rewrite {
  file { 'rewrite.load': path => '/etc/apache2/mods-available/rewrite.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'rewrite.conf': path => '/etc/apache2/mods-available/rewrite.conf', require => File['rewrite.load'], notify => Service['httpd'] }
}
class apache_shape::mod::setenvif {
  file { 'setenvif.load': path => '/etc/apache2/mods-available/setenvif.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'setenvif.conf': path => '/etc/apache2/mods-available/setenvif.conf', require => File['setenvif.load'], notify => Service['httpd'] }
}
class apache_shape::mod::socache_shmcb {
  file { 'socache_shmcb.load': path => '/etc/apache2/mods-available/socache_shmcb.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'socache_shmcb.conf': path => '/etc/apache2/mods-available/socache_shmcb.conf', require => File['socache_shmcb.load'], notify => Service['httpd'] }
  File['setenvif.load'] -> File['socache_shmcb.load']
}
class apache_shape::mod::ssl {
  file { 'ssl.load': path => '/etc/apache2/mods-available/ssl.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'ssl.conf': path => '/etc/apache2/mods-available/ssl.conf', require => File['ssl.load'], notify => Service['httpd'] }
}
class apache_shape::mod::status {
  file { 'status.load': path => '/etc/apache2/mods-available/status.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'status.conf': path => '/etc/apache2/mods-available/status.conf', require => File['status.load'], notify => Service['httpd'] }
}
class apache_shape::mod::suexec {
  file { 'suexec.load': path => '/etc/apache2/mods-available/suexec.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'suexec.conf': path => '/etc/apache2/mods-available/suexec.conf', require => File['suexec.load'], notify => Service['httpd'] }
  File['status.load'] -> File['suexec.load']
}
class apache_shape::mod::userdir {
  file { 'userdir.load': path => '/etc/apache2/mods-available/userdir.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'userdir.conf': path => '/etc/apache2/mods-available/userdir.conf', require => File['userdir.load'], notify => Service['httpd'] }
}
class apache_shape::mod::version {
  file { 'version.load': path => '/etc/apache2/mods-available/version.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'version.conf': path => '/etc/apache2/mods-available/version.conf', require => File['version.load'], notify => Service['httpd'] }
}
class apache_shape::mod::vhost_alias {
  file { 'vhost_alias.load': path => '/etc/apache2/mods-available/vhost_alias.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'vhost_alias.conf': path => '/etc/apache2/mods-available/vhost_alias.conf', require => File['vhost_alias.load'], notify => Service['httpd'] }
  File['version.load'] -> File['vhost_alias.load']
}
class apache_shape::mod::xsendfile {
  file { 'xsendfile.load': path => '/etc/apache2/mods-available/xsendfile.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'xsendfile.conf': path => '/etc/apache2/mods-available/xsendfile.conf', require => File['xsendfile.load'], notify => Service['httpd'] }
}
class apache_shape::mod::apreq2 {
  file { 'apreq2.load': path => '/etc/apache2/mods-available/apreq2.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'apreq2.conf': path => '/etc/apache2/mods-available/apreq2.conf', require => File['apreq2.load'], notify => Service['httpd'] }
}
class apache_shape::mod::auth_cas {
  file { 'auth_cas.load': path => '/etc/apache2/mods-available/auth_cas.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'auth_cas.conf': path => '/etc/apache2/mods-available/auth_cas.conf', require => File['auth_cas.load'], notify => Service['httpd'] }
  File['apreq2.load'] -> File['auth_cas.load']
}
class apache_shape::mod::auth_mellon {
  file { 'auth_mellon.load': path => '/etc/apache2/mods-available/auth_mellon.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'auth_mellon.conf': path => '/etc/apache2/mods-available/auth_mellon.conf', require => File['auth_mellon.load'], notify => Service['httpd'] }
}
class apache_shape::mod::authn_dbd {
  file { 'authn_dbd.load': path => '/etc/apache2/mods-available/authn_dbd.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'authn_dbd.conf': path => '/etc/apache2/mods-available/authn_dbd.conf', require => File['authn_dbd.load'], notify => Service['httpd'] }
}
class apache_shape::mod::cluster {
  file { 'cluster.load': path => '/etc/apache2/mods-available/cluster.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'cluster.conf': path => '/etc/apache2/mods-available/cluster.conf', require => File['cluster.load'], notify => Service['httpd'] }
  File['authn_dbd.load'] -> File['cluster.load']
}
class apache_shape::mod::dumpio {
  file { 'dumpio.load': path => '/etc/apache2/mods-available/dumpio.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'dumpio.conf': path => '/etc/apache2/mods-available/dumpio.conf', require => File['dumpio.load'], notify => Service['httpd'] }
}
class apache_shape::mod::geoip {
  file { 'geoip.load': path => '/etc/apache2/mods-available/geoip.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'geoip.conf': path => '/etc/apache2/mods-available/geoip.conf', require => File['geoip.load'], notify => Service['httpd'] }
}
class apache_shape::mod::http2 {
  file { 'http2.load': path => '/etc/apache2/mods-available/http2.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'http2.conf': path => '/etc/apache2/mods-available/http2.conf', require => File['http2.load'], notify => Service['httpd'] }
  File['geoip.load'] -> File['http2.load']
}
class apache_shape::mod::jk {
  file { 'jk.load': path => '/etc/apache2/mods-available/jk.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'jk.conf': path => '/etc/apache2/mods-available/jk.conf', require => File['jk.load'], notify => Service['httpd'] }
}
class apache_shape::mod::lbmethod_byrequests {
  file { 'lbmethod_byrequests.load': path => '/etc/apache2/mods-available/lbmethod_byrequests.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'lbmethod_byrequests.conf': path => '/etc/apache2/mods-available/lbmethod_byrequests.conf', require => File['lbmethod_byrequests.load'], notify => Service['httpd'] }
}
class apache_shape::mod::lua {
  file { 'lua.load': path => '/etc/apache2/mods-available/lua.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'lua.conf': path => '/etc/apache2/mods-available/lua.conf', require => File['lua.load'], notify => Service['httpd'] }
  File['lbmethod_byrequests.load'] -> File['lua.load']
}
class apache_shape::mod::md {
  file { 'md.load': path => '/etc/apache2/mods-available/md.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'md.conf': path => '/etc/apache2/mods-available/md.conf', require => File['md.load'], notify => Service['httpd'] }
}
class apache_shape::mod::nss {
  file { 'nss.load': path => '/etc/apache2/mods-available/nss.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'nss.conf': path => '/etc/apache2/mods-available/nss.conf', require => File['nss.load'], notify => Service['httpd'] }
}
class apache_shape::mod::pagespeed {
  file { 'pagespeed.load': path => '/etc/apache2/mods-available/pagespeed.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'pagespeed.conf': path => '/etc/apache2/mods-available/pagespeed.conf', require => File['pagespeed.load'], notify => Service['httpd'] }
  File['nss.load'] -> File['pagespeed.load']
}
class apache_shape::mod::passenger {
  file { 'passenger.load': path => '/etc/apache2/mods-available/passenger.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'passenger.conf': path => '/etc/apache2/mods-available/passenger.conf', require => File['passenger.load'], notify => Service['httpd'] }
}
class apache_shape::mod::perl {
  file { 'perl.load': path => '/etc/apache2/mods-available/perl.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'perl.conf': path => '/etc/apache2/mods-available/perl.conf', require => File['perl.load'], notify => Service['httpd'] }
}
class apache_shape::mod::php {
  file { 'php.load': path => '/etc/apache2/mods-available/php.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'php.conf': path => '/etc/apache2/mods-available/php.conf', require => File['php.load'], notify => Service['httpd'] }
  File['perl.load'] -> File['php.load']
}
class apache_shape::mod::prefork {
  file { 'prefork.load': path => '/etc/apache2/mods-available/prefork.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'prefork.conf': path => '/etc/apache2/mods-available/prefork.conf', require => File['prefork.load'], notify => Service['httpd'] }
}
class apache_shape::mod::event {
  file { 'event.load': path => '/etc/apache2/mods-available/event.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'event.conf': path => '/etc/apache2/mods-available/event.conf', require => File['event.load'], notify => Service['httpd'] }
}
class apache_shape::mod::worker {
  file { 'worker.load': path => '/etc/apache2/mods-available/worker.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'worker.conf': path => '/etc/apache2/mods-available/worker.conf', require => File['worker.load'], notify => Service['httpd'] }
  File['event.load'] -> File['worker.load']
}
class apache_shape::mod::itk {
  file { 'itk.load': path => '/etc/apache2/mods-available/itk.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'itk.conf': path => '/etc/apache2/mods-available/itk.conf', require => File['itk.load'], notify => Service['httpd'] }
}
class apache_shape::mod::peruser {
  file { 'peruser.load': path => '/etc/apache2/mods-available/peruser.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'peruser.conf': path => '/etc/apache2/mods-available/peruser.conf', require => File['peruser.load'], notify => Service['httpd'] }
}
class apache_shape::mod::python {
  file { 'python.load': path => '/etc/apache2/mods-available/python.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'python.conf': path => '/etc/apache2/mods-available/python.conf', require => File['python.load'], notify => Service['httpd'] }
  File['peruser.load'] -> File['python.load']
}
class apache_shape::mod::remoteip {
  file { 'remoteip.load': path => '/etc/apache2/mods-available/remoteip.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'remoteip.conf': path => '/etc/apache2/mods-available/remoteip.conf', require => File['remoteip.load'], notify => Service['httpd'] }
}
class apache_shape::mod::security {
  file { 'security.load': path => '/etc/apache2/mods-available/security.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'security.conf': path => '/etc/apache2/mods-available/security.conf', require => File['security.load'], notify => Service['httpd'] }
}
class apache_shape::mod::shib {
  file { 'shib.load': path => '/etc/apache2/mods-available/shib.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'shib.conf': path => '/etc/apache2/mods-available/shib.conf', require => File['shib.load'], notify => Service['httpd'] }
  File['security.load'] -> File['shib.load']
}
class apache_shape::mod::speling {
  file { 'speling.load': path => '/etc/apache2/mods-available/speling.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'speling.conf': path => '/etc/apache2/mods-available/speling.conf', require => File['speling.load'], notify => Service['httpd'] }
}
class apache_shape::mod::wsgi {
  file { 'wsgi.load': path => '/etc/apache2/mods-available/wsgi.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'wsgi.conf': path => '/etc/apache2/mods-available/wsgi.conf', require => File['wsgi.load'], notify => Service['httpd'] }
}
class apache_shape::mod::fcgid {
  file { 'fcgid.load': path => '/etc/apache2/mods-available/fcgid.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'fcgid.conf': path => '/etc/apache2/mods-available/fcgid.conf', require => File['fcgid.load'], notify => Service['httpd'] }
  File['wsgi.load'] -> File['fcgid.load']
}
class apache_shape::mod::fastcgi {
  file { 'fastcgi.load': path => '/etc/apache2/mods-available/fastcgi.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'fastcgi.conf': path => '/etc/apache2/mods-available/fastcgi.conf', require => File['fastcgi.load'], notify => Service['httpd'] }
}
class apache_shape::mod::disk_cache {
  file { 'disk_cache.load': path => '/etc/apache2/mods-available/disk_cache.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'disk_cache.conf': path => '/etc/apache2/mods-available/disk_cache.conf', require => File['disk_cache.load'], notify => Service['httpd'] }
}
class apache_shape::mod::mem_cache {
  file { 'mem_cache.load': path => '/etc/apache2/mods-available/mem_cache.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'mem_cache.conf': path => '/etc/apache2/mods-available/mem_cache.conf', require => File['mem_cache.load'], notify => Service['httpd'] }
  File['disk_cache.load'] -> File['mem_cache.load']
}
class apache_shape::mod::actions {
  file { 'actions.load': path => '/etc/apache2/mods-available/actions.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'actions.conf': path => '/etc/apache2/mods-available/actions.conf', require => File['actions.load'], notify => Service['httpd'] }
}
class apache_shape::mod::asis {
  file { 'asis.load': path => '/etc/apache2/mods-available/asis.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'asis.conf': path => '/etc/apache2/mods-available/asis.conf', require => File['asis.load'], notify => Service['httpd'] }
}
class apache_shape::mod::auth_digest {
  file { 'auth_digest.load': path => '/etc/apache2/mods-available/auth_digest.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'auth_digest.conf': path => '/etc/apache2/mods-available/auth_digest.conf', require => File['auth_digest.load'], notify => Service['httpd'] }
  File['asis.load'] -> File['auth_digest.load']
}
class apache_shape::mod::auth_kerb {
  file { 'auth_kerb.load': path => '/etc/apache2/mods-available/auth_kerb.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'auth_kerb.conf': path => '/etc/apache2/mods-available/auth_kerb.conf', require => File['auth_kerb.load'], notify => Service['httpd'] }
}
class apache_shape::mod::authnz_ldap {
  file { 'authnz_ldap.load': path => '/etc/apache2/mods-available/authnz_ldap.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'authnz_ldap.conf': path => '/etc/apache2/mods-available/authnz_ldap.conf', require => File['authnz_ldap.load'], notify => Service['httpd'] }
}
class apache_shape::mod::authnz_pam {
  file { 'authnz_pam.load': path => '/etc/apache2/mods-available/authnz_pam.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'authnz_pam.conf': path => '/etc/apache2/mods-available/authnz_pam.conf', require => File['authnz_pam.load'], notify => Service['httpd'] }
  File['authnz_ldap.load'] -> File['authnz_pam.load']
}
class apache_shape::mod::dbd {
  file { 'dbd.load': path => '/etc/apache2/mods-available/dbd.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'dbd.conf': path => '/etc/apache2/mods-available/dbd.conf', require => File['dbd.load'], notify => Service['httpd'] }
}
class apache_shape::mod::evasive {
  file { 'evasive.load': path => '/etc/apache2/mods-available/evasive.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'evasive.conf': path => '/etc/apache2/mods-available/evasive.conf', require => File['evasive.load'], notify => Service['httpd'] }
}
class apache_shape::mod::intercept_form_submit {
  file { 'intercept_form_submit.load': path => '/etc/apache2/mods-available/intercept_form_submit.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'intercept_form_submit.conf': path => '/etc/apache2/mods-available/intercept_form_submit.conf', require => File['intercept_form_submit.load'], notify => Service['httpd'] }
  File['evasive.load'] -> File['intercept_form_submit.load']
}
class apache_shape::mod::lookup_identity {
  file { 'lookup_identity.load': path => '/etc/apache2/mods-available/lookup_identity.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'lookup_identity.conf': path => '/etc/apache2/mods-available/lookup_identity.conf', require => File['lookup_identity.load'], notify => Service['httpd'] }
}
class apache_shape::mod::macro {
  file { 'macro.load': path => '/etc/apache2/mods-available/macro.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'macro.conf': path => '/etc/apache2/mods-available/macro.conf', require => File['macro.load'], notify => Service['httpd'] }
}
class apache_shape::mod::mpm_event {
  file { 'mpm_event.load': path => '/etc/apache2/mods-available/mpm_event.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'mpm_event.conf': path => '/etc/apache2/mods-available/mpm_event.conf', require => File['mpm_event.load'], notify => Service['httpd'] }
  File['macro.load'] -> File['mpm_event.load']
}
class apache_shape::mod::mpm_worker {
  file { 'mpm_worker.load': path => '/etc/apache2/mods-available/mpm_worker.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'mpm_worker.conf': path => '/etc/apache2/mods-available/mpm_worker.conf', require => File['mpm_worker.load'], notify => Service['httpd'] }
}
class apache_shape::mod::data {
  file { 'data.load': path => '/etc/apache2/mods-available/data.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'data.conf': path => '/etc/apache2/mods-available/data.conf', require => File['data.load'], notify => Service['httpd'] }
}
class apache_shape::mod::unique_id {
  file { 'unique_id.load': path => '/etc/apache2/mods-available/unique_id.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'unique_id.conf': path => '/etc/apache2/mods-available/unique_id.conf', require => File['unique_id.load'], notify => Service['httpd'] }
  File['data.load'] -> File['unique_id.load']
}
class apache_shape::mod::usertrack {
  file { 'usertrack.load': path => '/etc/apache2/mods-available/usertrack.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'usertrack.conf': path => '/etc/apache2/mods-available/usertrack.conf', require => File['usertrack.load'], notify => Service['httpd'] }
}
class apache_shape::mod::watchdog {
  file { 'watchdog.load': path => '/etc/apache2/mods-available/watchdog.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'watchdog.conf': path => '/etc/apache2/mods-available/watchdog.conf', require => File['watchdog.load'], notify => Service['httpd'] }
}
class apache_shape::mod::buffer {
  file { 'buffer.load': path => '/etc/apache2/mods-available/buffer.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'buffer.conf': path => '/etc/apache2/mods-available/buffer.conf', require => File['buffer.load'], notify => Service['httpd'] }
  File['watchdog.load'] -> File['buffer.load']
}
class apache_shape::mod::request {
  file { 'request.load': path => '/etc/apache2/mods-available/request.load', require => Package['httpd'], notify => Service['httpd'] }
  file { 'request.conf': path => '/etc/apache2/mods-available/request.conf', require => File['request.load'], notify => Service['httpd'] }
}

include apache_shape
