"""``python -m saturate.pypm``: compile a pattern file, or dump a ``.pmb`` file.

    python -m saturate.pypm compile FILE.py [-o OUT.pmb]
    python -m saturate.pypm dump FILE.pmb

Errors are one line, ``FILE:LINE: error: message``, and exit with status 1; ``compile``
writes its output atomically and never on error.
"""
from __future__ import annotations

import argparse
import os
import sys

from . import compile_file
from .core import format_file
from .errors import PyPMError
from .reader import FormatError, read_file


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m saturate.pypm",
                                     description="The PyPM pattern compiler.")
    commands = parser.add_subparsers(dest="command", required=True)
    compile_cmd = commands.add_parser("compile", help="compile a pattern file to .pmb")
    compile_cmd.add_argument("file", help="the Python pattern file")
    compile_cmd.add_argument("-o", "--output", help="the .pmb file (default: FILE with .pmb)")
    dump_cmd = commands.add_parser("dump", help="print a .pmb file in the core calculus")
    dump_cmd.add_argument("file", help="the .pmb file")
    args = parser.parse_args(argv)

    if args.command == "compile":
        out = args.output or os.path.splitext(args.file)[0] + ".pmb"
        try:
            compile_file(args.file, out)
        except PyPMError as e:
            if e.filename is None:
                e.filename = args.file
            print(str(e).replace("\n", " "), file=sys.stderr)
            return 1
        except OSError as e:
            print(f"{out}: error: cannot write: {e.strerror}", file=sys.stderr)
            return 1
        except MemoryError:
            print(f"{args.file}: error: compiling it used more memory than its limit "
                  "(saturate pm compile --memory-limit)", file=sys.stderr)
            return 1
        return 0

    try:
        pattern_file = read_file(args.file)
    except OSError as e:
        print(f"{args.file}: error: cannot read: {e.strerror}", file=sys.stderr)
        return 1
    except FormatError as e:
        print(f"{args.file}: error: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(format_file(pattern_file))
    return 0


if __name__ == "__main__":
    from saturate import child_guard

    child_guard.apply_from_environment()
    sys.exit(main())
