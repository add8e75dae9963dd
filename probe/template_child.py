"""Renders a model's chat template inside the box probe.template_box starts: a separate
process with a memory and CPU-time cap, run as a script (``python -I``) that imports
nothing of probe, only Jinja's sandbox.

Reads one JSON request on stdin, writes one JSON answer on stdout: ``{"rendered": [...]}``
or ``{"error": kind, "detail": text}``. Each rendering is streamed and stopped as soon as
it passes its size limit.
"""

import json
import resource
import sys
from datetime import datetime


class TooLong(Exception):
    pass


class Refused(Exception):
    """The template's own ``raise_exception``."""


def _die_with_parent() -> None:
    try:                       # Linux: killed when the probe process is, however it ends
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except Exception:
        pass


def _environment():
    import jinja2
    import jinja2.ext
    import jinja2.nodes
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class Generation(jinja2.ext.Extension):
        """``{% generation %}…{% endgeneration %}`` (transformers' assistant marks): the
        body as is."""

        tags = {"generation"}

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
            return jinja2.nodes.Scope(body).set_lineno(lineno)

    class Namespace(jinja2.utils.Namespace):
        # As transformers does: no dunder attributes stored on a namespace.
        def __init__(*args, **kwargs):
            self, args = args[0], args[1:]
            attrs = dict(*args, **kwargs)
            for name in attrs:
                Namespace._check(name)
            jinja2.utils.Namespace.__init__(self, attrs)

        def __setitem__(self, name, value):
            Namespace._check(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

        @staticmethod
        def _check(name):
            if isinstance(name, str) and name.startswith("_"):
                raise jinja2.exceptions.SecurityError(f"namespace attribute {name!r}")

    def raise_exception(message):
        raise Refused(str(message))

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    # The environment transformers and llama-cpp-python render chat templates with.
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[Generation, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals.update(raise_exception=raise_exception, namespace=Namespace,
                       strftime_now=lambda f: datetime.now().strftime(f))
    return env


def _render(template, conversation, context, limit):
    size = 0
    pieces = []
    for piece in template.generate(messages=conversation, add_generation_prompt=True,
                                   **context):
        size += len(piece.encode("utf-8", "surrogatepass"))
        if size > limit:
            raise TooLong(str(limit))
        pieces.append(piece)
    return "".join(pieces)


def main() -> None:
    _die_with_parent()
    request = json.loads(sys.stdin.read())
    env = _environment()
    import jinja2

    memory = request["memory_bytes"]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(request["cpu_seconds"])
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    try:
        template = env.from_string(request["template"])
        rendered = [_render(template, conversation, request["context"], limit)
                    for conversation, limit in zip(request["conversations"],
                                                   request["limits"])]
        answer = {"rendered": rendered}
    except jinja2.TemplateSyntaxError as exc:
        answer = {"error": "syntax", "detail": f"line {exc.lineno}: {exc.message}"}
    except Refused as exc:
        answer = {"error": "refused", "detail": str(exc)}
    except TooLong as exc:
        answer = {"error": "too_long", "detail": str(exc)}
    except MemoryError:
        answer = {"error": "memory", "detail": ""}
    except RecursionError:
        answer = {"error": "recursion", "detail": ""}
    except jinja2.exceptions.SecurityError as exc:
        answer = {"error": "forbidden", "detail": str(exc)}
    except Exception as exc:           # the template's own failure, named in one sentence
        answer = {"error": "failed", "detail": f"{type(exc).__name__}: {exc}"}
    sys.stdout.write(json.dumps(answer, ensure_ascii=False))


if __name__ == "__main__":
    main()
