"""The console UI: rich output, prompt-toolkit input, and the callbacks the core takes.

Nothing in the core imports from here; ui/product.py passes these in as callbacks.
"""
