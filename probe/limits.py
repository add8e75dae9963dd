"""Bounds on what probe reads and keeps, in one place (docs/storage.md, "Reliability and limits").

A model's answer is in its first few words; a response longer than this is cut before
extraction and storage, so a runaway or hostile output costs bounded time and space.
Files are streamed line by line under the caps below, so memory stays bounded whatever
the input (a small ``.gz`` can expand to gigabytes).
"""

MAX_RESPONSE_CHARS = 4096
"""Characters of one response kept for extraction and storage."""

MAX_LINE_BYTES = 1 << 20
"""One JSONL line (a responses, pairs, prompts or framings record): 1 MiB."""

MAX_INPUT_BYTES = 1 << 30
"""Decompressed bytes read from one JSONL input (plain or .gz): 1 GiB."""

MAX_INPUT_LINES = 10_000_000
"""Lines (blank ones included) read from one JSONL input."""

MAX_SCORE_SAMPLES = 1_000_000
"""Samples one ``probe score`` reads (all its files and families together); checked as
each row is read, so a file of ten million identical lines is refused at once."""

MAX_FAMILY_BYTES = 16 << 20
"""A family TOML file: 1,000 framings of 4,000 characters fit, even in a 3-byte script."""

MAX_ALIASES = 10_000
"""Names in a family's ``answers`` table, the canonical answers and their aliases together:
the matcher reads each one (about half a millisecond), so 10,000 cost seconds and the
1.6 million a 16 MiB file can hold cost ten minutes. Real families list a few hundred."""

MAX_ALIASES_PER_ANSWER = 1_000
"""Aliases listed under one canonical answer."""

MAX_SYSTEM_PROMPT_BYTES = 64 << 10
"""A ``--system`` prompt file."""

MAX_JSON_DEPTH = 64
"""Nesting depth accepted in a JSONL record or a server reply (real ones use < 10)."""

MAX_TOML_DEPTH = 32
"""Nesting depth accepted in a family file (a real one uses 2)."""

MAX_INT_DIGITS = 18
"""Digits of an integer in a family or responses file (``framing_idx``): fits in int64."""

MAX_CHAT_TEMPLATE_BYTES = 1 << 20
"""A model's chat template (GGUF metadata, tokenizer config): real ones are a few KiB."""

MAX_TEMPLATE_OUTPUT_BYTES = 64 << 10
"""What a chat template may add to one prompt beyond the messages it is given."""

TEMPLATE_TIMEOUT_S = 10.0
"""Wall time for rendering a run's prompts through the model's chat template (one box)."""

TEMPLATE_MEMORY_BYTES = 512 << 20
"""Address space of the process a chat template is rendered in."""

STOP_GRACE_S = 10.0
"""After Ctrl-C or SIGTERM, how long a run may take to stop cleanly before probe exits
anyway (a second signal ends it at once)."""

MAX_BODY_BYTES = 8 << 20
"""One server reply from an OpenAI-compatible server: 8 MiB."""

MAX_ERROR_CHARS = 300
"""Characters of a server's error body shown or stored (after redaction)."""

REQUEST_TIMEOUT_S = 60.0
"""Total time for one request to a server, headers and body together (``--timeout``)."""

MAX_RETRIES = 4
"""Retries of one request after an error (a connection lost, HTTP 500/502/504/408/409); a
busy answer (429, 503) does not use one up: the pool backs off instead, within the budget."""

RETRY_BUDGET_S = 120.0
"""Total time spent waiting between retries of one request, ``Retry-After`` included."""

MAX_RETRY_AFTER_S = 60.0
"""The longest ``Retry-After`` honoured; a longer one fails the request at once."""

MAX_MODEL_WALK_ENTRIES = 20_000
"""Folders and files visited when listing models under ./models and PROBE_MODEL_DIRS."""

MAX_MODEL_WALK_DEPTH = 8
"""Folder depth searched for models."""

LEASE_TTL_S = 60.0
"""A run's lease is stale when its owner has not renewed it for this long."""

MAX_KEY_ECHO_CHARS = 40
"""Characters of an unknown key (or other user value) echoed in an error message."""

MAX_CONCURRENCY = 1024
"""Requests in flight at once to a server (``--concurrency``); the paper's released client
keeps a pool of 1,024 connections."""

MAX_N_PER_REQUEST = 64
"""Completions asked for in one request (``n``) where the server honours ``n``."""

COMMIT_EVERY = 256
"""Samples committed in one transaction at most; the pipeline commits what has arrived
before it waits for more, so a kill -9 loses only requests still in flight."""

STOP_GRACE_S = 10.0
"""After Ctrl-C or SIGTERM, the longest probe waits for a clean stop before it exits anyway
(the samples committed so far are kept)."""
