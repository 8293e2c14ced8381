# A class nothing declares is never loaded: its missing include fails
# no node (declared, the same body fails: decl case in alone_class_severity).
class role::broker {
  include profile::activemq
}
notify { 'a': }
