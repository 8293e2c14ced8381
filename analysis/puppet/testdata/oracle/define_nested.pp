# Nested defines: an outer define declares an inner define instance. Each
# level of define bodies is evaluated in a later pass, so inner resources come
# after outer ones, which come after all main-code resources.
define inner() { notify { "inner-${title}": } }
define outer() {
  notify { "outer-${title}-pre": }
  inner { "${title}-i": }
  notify { "outer-${title}-post": }
}
outer { 'o1': }
notify { 'main-1': }
outer { 'o2': }
notify { 'main-2': }
