"""A server address (``--base-url``) checked before anything is sent or stored.

The address is stored with every run (so `--resume` can insist on the same server) and
shown in errors, so it must never carry a credential: a user name or password, a query
(``?api_key=…``), or a key pasted into the path (``/sk-…/v1``, ``/key=…/``) is refused
with one sentence; the key belongs in a variable named by ``--api-key-env``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from probe.errors import BadInput
from probe.reading import shown

# Prefixes of API keys and access tokens in common use (OpenAI, Anthropic, Groq, Hugging
# Face, xAI, Perplexity, GitHub, GitLab, NVIDIA, Replicate, Cerebras, Google).
_KEY_SHAPES = re.compile(
    r"(?i)(?:^|[^a-z0-9])(?:sk|rk|pk|gsk|hf|xai|pplx|ghp|gho|ghs|ghu|github_pat|glpat|nvapi|"
    r"r8|csk|fw|key|token)[-_][a-z0-9_\-]{6,}|AIza[0-9A-Za-z_\-]{20,}")
# key=value (or key:value) pairs naming a credential, as matrix parameters or pasted text.
_KEY_PARAM = re.compile(r"(?i)(?<![a-z0-9])(api[-_]?key|apikey|access[-_]?token|token|secret|"
                        r"passw(or)?d|auth(orization)?|bearer|key|sig(nature)?)\s*[=:]")
# A host name or address, or an IPv6 address in brackets, then an optional port.
_NETLOC = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[^\[\]:/?#@\s]+)(:[0-9]{1,5})?")
_RUN = re.compile(r"[A-Za-z0-9]{20,}")


def _random_token(text: str) -> bool:
    """A long unbroken run mixing upper- and lower-case letters and digits reads as a
    generated secret; hex ids and UUIDs (one case), words and model names
    ("Meta-Llama-3-8B-Instruct") do not."""
    return any(any(c.isupper() for c in run) and any(c.islower() for c in run)
               and any(c.isdigit() for c in run) for run in _RUN.findall(text))


def secret_in_path(path: str) -> bool:
    """Does a URL path hold what looks like a credential (after percent-decoding)?"""
    decoded = unquote(unquote(path))
    if _KEY_SHAPES.search(decoded) or _KEY_PARAM.search(decoded):
        return True
    return _random_token(decoded)


@dataclass(frozen=True)
class Endpoint:
    url: str            # as given, less a trailing slash: stored and compared on resume
    https: bool
    host: str
    port: int
    prefix: str         # the path before /v1

    @property
    def origin(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{'https' if self.https else 'http'}://{host}:{self.port}"

    def address(self, path: str) -> str:
        return self.origin + self.prefix + path


def check_base_url(url: object) -> Endpoint:
    """The server at ``url``, or one sentence (BadInput) naming what is wrong with it."""
    if not isinstance(url, str) or not url.strip():
        raise BadInput("--base-url is empty; give the server's address, e.g. "
                       "http://127.0.0.1:8000.")
    if any(c.isspace() or ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in url):
        raise BadInput("--base-url contains spaces or control characters; give the server's "
                       "address alone, e.g. http://127.0.0.1:8000.")
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in ("http", "https"):
        raise BadInput("--base-url must start with http:// or https:// (e.g. "
                       "http://127.0.0.1:8000).")
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port = parts.port
    except ValueError as exc:   # "Invalid IPv6 URL", a port out of range or not a number
        what = "an invalid port" if "port" in str(exc).lower() else \
            "an unclosed or invalid [IPv6] host" if "ipv6" in str(exc).lower() else \
            "a malformed address"
        raise BadInput(f"--base-url has {what}; give the server's address, e.g. "
                       "http://127.0.0.1:8000 or http://[::1]:8000.") from None
    if parts.fragment or url.rstrip("/").endswith("#"):
        raise BadInput(f"--base-url must not end in a #fragment (got "
                       f"'#{shown(parts.fragment)}'); give the server's address alone, e.g. "
                       "http://127.0.0.1:8000/v1.")
    if parts.username is not None or parts.password is not None or parts.query \
            or url.rstrip("/").endswith("?"):
        # Credentials there would be stored with the run and shown in its name.
        raise BadInput("--base-url must not carry a user name, password or query (?…); put "
                       "the key in a variable and pass --api-key-env.")
    if not host:
        raise BadInput(f"--base-url names no host (got '{shown(url)}').")
    if not _NETLOC.fullmatch(parts.netloc):
        raise BadInput("--base-url has a malformed host; give the server's address, e.g. "
                       "http://127.0.0.1:8000 or http://[::1]:8000.")
    if not host.isascii():
        # httpx encodes the name as IDNA 2008 (the idna package) to connect; a name with
        # no such form (fullwidth letters, symbols) would fail there as its exception.
        import idna

        try:
            idna.encode(host.lower())
        except (idna.IDNAError, UnicodeError):
            raise BadInput(f"--base-url has a host name that is not a valid domain name "
                           f"('{shown(host)}'); type it in plain letters, e.g. "
                           "http://localhost:8000.") from None
    if secret_in_path(parts.path):
        raise BadInput("--base-url looks like it carries an API key in its path; probe "
                       "stores the address with every run, so put the key in a variable "
                       "and pass --api-key-env.")
    prefix = parts.path.rstrip("/")
    if prefix.endswith("/v1"):
        prefix = prefix[:-3]
    return Endpoint(url.rstrip("/"), parts.scheme == "https", host,
                    port or (443 if parts.scheme == "https" else 80), prefix)
