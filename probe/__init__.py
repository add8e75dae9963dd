"""probe: is a language model's favourite answer a Deep bias or a Shallow one?"""

__version__ = "0.1.0"
