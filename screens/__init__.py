"""The Textual UI: a client of the probe core."""
