# A metaparameter referring to a virtual resource that is never realized: the
# reference does not realize it, and the failure comes at apply time with a
# DIFFERENT message: "Could not find dependency ... for ..." (no node).
@notify { 'virt': }
notify { 'a': require => Notify['virt'] }
