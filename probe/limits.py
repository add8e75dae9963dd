"""Bounds on what probe reads and keeps, in one place (README "Reliability and limits").

A model's answer is in its first few words; a response longer than this is cut before
extraction and storage, so a runaway or hostile output costs bounded time and space.
"""

MAX_RESPONSE_CHARS = 4096
