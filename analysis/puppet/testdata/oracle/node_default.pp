# Node definitions: with no matching named node, `node default` is used. Its
# body is evaluated after the top-level code, so 'top-level' (written after
# the node block) runs first; bodies of other named nodes are ignored.
node 'other.example.com' { notify { 'other-node': } }
node default { notify { 'in-default': } }
notify { 'top-level': }
