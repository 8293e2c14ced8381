# A regex node definition matching the certname beats `node default`, but an
# exact name match beats the regex; here no exact name exists, so /^puppet-/
# is chosen.
node default { notify { 'in-default': } }
node /^puppet-/ { notify { 'in-regex': } }
node 'someone-else' { notify { 'in-else': } }
