"""The loop of Saturate's long-lived Python helpers (``ort_timer --serve``, ``milp_highs``): one
JSON request per line of standard input, one JSON answer per line of standard output, and a
failed request answered with ``{"error": "..."}`` while the helper goes on serving.

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
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = answer(json.loads(line))
        except KeyError as error:
            reply = {"error": f"malformed request: no {error}"}
        except Exception as error:  # the C++ side reports it
            reply = {"error": describe_failure(error)}
        print(json.dumps(reply), file=answers, flush=True)
    return 0
