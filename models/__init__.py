"""Model clients: the real Chat Completions client and the scripted (offline) one."""
