"""The loop of Saturate's long-lived Python helpers (``ort_helper --serve``, ``milp_highs``): one
JSON request per line of standard input, one JSON answer per line of standard output, and a
failed request answered with ``{"error": "..."}`` while the helper goes on serving.

A request may carry attachments (model bytes, so that no file is written for them): its
``"attachments"`` lists their sizes, and that many raw bytes follow the line, one attachment
after another; the request reaches ``answer`` with ``"attachments"`` replaced by the bytes.

Answers go to a private copy of standard output, and file descriptor 1 becomes standard error:
native libraries (HiGHS prints a banner from C++) cannot interleave text with an answer.
"""
from __future__ import annotations

import json
import os
import sys
from typing import Callable


def serve(answer: Callable[[dict], dict], describe_failure: Callable[[Exception], str]) -> int:
    """Answers every request line with ``answer(request)``; an exception becomes
    ``{"error": describe_failure(error)}`` (a missing key: "malformed request: no KEY")."""
    sys.stdout.flush()
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    for line in requests:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if isinstance(request, dict) and "attachments" in request:
                request["attachments"] = [read_exactly(requests, int(size))
                                          for size in request["attachments"]]
            reply = answer(request)
        except EOFError as error:  # the attachments were cut short: nothing more will come
            print(json.dumps({"error": str(error)}), file=answers, flush=True)
            return 1
        except KeyError as error:
            reply = {"error": f"malformed request: no {error}"}
        except Exception as error:  # the C++ side reports it
            reply = {"error": describe_failure(error)}
        print(json.dumps(reply), file=answers, flush=True)
    return 0


def read_exactly(stream, size: int) -> bytes:
    """``size`` bytes from ``stream``; raises EOFError when it ends first."""
    chunks, left = [], size
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            raise EOFError(f"malformed request: an attachment of {size} bytes ended after "
                           f"{size - left}")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
