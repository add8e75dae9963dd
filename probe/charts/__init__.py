"""Figures of stored runs. ``data`` reads what they show (shared with the app's charts
screen); ``answers``, ``labels`` and ``analyses`` draw them with matplotlib; ``page`` and
``write`` make `probe report`'s files. Only ``write`` and the drawing modules import
matplotlib, and nothing outside `probe report` imports them."""
