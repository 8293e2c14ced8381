name 'nginx'
version '1.0.0'
depends 'apt'
