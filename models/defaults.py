"""The model's defaults that `stepagent --help` shows: the model's name and a request's deadline.

A leaf (it imports nothing), so the command line (ui/command_line.py) shows them without
loading a model client; ui/model_choice.py and models/bounds.py use them from here.
"""

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_DEADLINE_SECONDS = 600.0
