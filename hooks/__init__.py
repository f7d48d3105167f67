"""PreToolUse hooks: line 2 of plan mode's defence, and the permission questions.

`registry` holds hooks as data; `plan_mode_guard` denies whatever could change
the system while planning; `permission_ask` asks before risky calls outside it.
`session_rules` is a layer: the user's "don't ask again" rules answer those questions.
"""
