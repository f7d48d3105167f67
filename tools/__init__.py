"""The tools the model can call, one file per tool or small family.

Each file builds `Tool` records (tools/base.py). The core's are composed by agent/assemble.py;
the others attach as layers, each through one function beside its tool (ui/product.py lists them).
"""
