"""Rewind: checkpoints of the workspace and the session before each prompt, and the way back."""
