# A chaining arrow between plain references (not collectors) whose left
# operand is virtual and unrealized: it is not realized and, unlike the
# metaparameter form (ref_virtual_unrealized), the edge is dropped silently.
@notify { 'virt': }
notify { 'a': }
Notify['virt'] -> Notify['a']
