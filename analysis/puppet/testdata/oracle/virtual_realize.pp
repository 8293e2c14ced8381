# Virtual resources (@type) are not applied unless realized: realize() and a
# collector both realize; 'v-never' stays virtual and is absent. A realized
# resource keeps its catalog position from its @declaration.
@notify { 'v-by-realize': }
@notify { 'v-by-collector': tag => 'web' }
@notify { 'v-never': }
notify { 'plain': }
realize(Notify['v-by-realize'])
Notify <| tag == 'web' |>
