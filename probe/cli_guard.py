"""What the command line checks around every command: standard output that is closed or
full, and arguments that are not text (bytes the terminal could not decode)."""

from __future__ import annotations

import math
import os
import sys
from errno import EPIPE

import click

from probe.errors import BadInput, ProbeError
from probe.terminal import filtered_output, first_unsafe


def _say_and_exit(why: str, errno: int | None = None) -> None:
    """One sentence on stderr and exit 1, without flushing stdout again at exit (which
    would only repeat the failure as a traceback)."""
    try:
        sys.stderr.write("probe: standard output was closed before probe finished writing.\n"
                         if errno == EPIPE else
                         f"probe: cannot write to standard output ({why}).\n")
        sys.stderr.flush()
    finally:
        os._exit(1)


def _closed_stdout() -> bool:
    if sys.stdout is None:
        return True
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):
        return False                    # a stream with no descriptor (a test's capture)
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


class StdoutFailed(Exception):
    """Writing to standard output failed (full disk, closed pipe): not an ``OSError``, so
    no handler meant for the user's files mistakes it for one of theirs."""

    def __init__(self, err: OSError):
        super().__init__(err.strerror or str(err))
        self.errno = err.errno


def _guard_stdout() -> None:
    """Make a failed write or flush of stdout a ``StdoutFailed``."""
    stream = sys.stdout
    write, flush = stream.write, stream.flush

    def guarded(call):
        def inner(*args):
            try:
                return call(*args)
            except OSError as err:
                raise StdoutFailed(err) from None
        return inner

    try:
        stream.write, stream.flush = guarded(write), guarded(flush)
    except AttributeError:              # a stream that takes no attributes: left as is
        pass


def run_main(cli) -> None:
    """Run the click group; a closed or full standard output is one sentence, exit 1.
    Checked first when closed: SQLite could otherwise open the database as descriptor 1,
    and every line printed would land in it."""
    if _closed_stdout():
        _say_and_exit("it is closed")
    _guard_stdout()
    # Usage errors echo what the user typed: they pass the terminal-safe filter too.
    with filtered_output():
        code = _main(cli)
        try:
            sys.stdout.flush()
        except (StdoutFailed, OSError, ValueError) as err:
            _say_and_exit(str(err), getattr(err, "errno", None))
    sys.exit(code)


def _main(cli) -> int | str | None:
    try:
        code = cli.main(prog_name="probe", standalone_mode=False)
        return code if isinstance(code, int) else 0
    except SystemExit as done:
        return done.code
    except StdoutFailed as err:
        _say_and_exit(str(err), err.errno)
    except click.BadParameter as err:
        # A folder given for a file, a value out of range: one sentence, like every other
        # bad input, not four lines of usage.
        message = err.format_message()
        click.echo(f"probe: {message[:1].lower()}{message[1:]}", err=True, color=True)
        return 2
    except click.ClickException as err:
        err.show()                      # an unknown option or command: usage helps there
        return err.exit_code
    except click.Abort:
        click.echo("Aborted!", err=True, color=True)
        return 1
    except ProbeError as err:           # a check of the group's own options
        click.echo(f"probe: {err}", err=True, color=True)
        return err.exit_code
    return 0


def _not_text(value) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, (tuple, list)):
        return any(_not_text(v) for v in value)
    return False


def check_text_params(ctx: click.Context) -> None:
    """BadInput naming the first option whose value is not text: bytes the locale could
    not decode reach Python as lone surrogates, which no database or file can store."""
    for param in ctx.command.params:
        if _not_text(ctx.params.get(param.name)):
            name = param.opts[0] if param.param_type_name == "option" else param.human_readable_name
            raise BadInput(f"{name} is not valid UTF-8 text; give names and paths as "
                           "UTF-8.")


def _plain(what: str):
    def callback(ctx, param, value):
        for item in value if isinstance(value, tuple) else (value,):
            # Bytes the locale could not decode are check_text_params's to name.
            found = first_unsafe(item) if isinstance(item, str) and not _not_text(item) \
                else None
            if found:
                where, escaped = found
                raise click.BadParameter(f"holds a control or invisible character ({escaped} "
                                         f"at position {where + 1}); give {what} without "
                                         "one.", ctx, param)
        return value
    return callback


# Click callbacks: a model name (stored with the run and shown wherever the run is) and a
# category (written into every drafted framing, so sent to the model) hold no control, bidi
# or format character.
model_name = _plain("a name")
plain_phrase = _plain("a phrase")


def positive_seconds(ctx, param, value):
    """A click callback: a number of seconds above 0 and finite (0 would wait forever)."""
    if value is not None and not (value > 0 and math.isfinite(value)):
        raise BadInput(f"{param.opts[0]} must be a number of seconds above 0 (got {value:g}).")
    return value
