"""The tools the model can call, one file per tool or small family.

Each file builds `Tool` records (tools/base.py); `toolset.py` puts the set together.
"""
