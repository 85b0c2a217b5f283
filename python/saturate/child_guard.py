"""What every helper process Saturate starts does first (src/support/child_process.h): die with
the saturate process that started it, and keep to the limits it was given.

- ``SATURATE_PARENT_PID``: the parent. The kernel kills this process when the parent thread
  exits (Linux's parent-death signal), and a parent already gone ends it at once, so killing
  saturate (TERM or KILL, as ``subprocess.run(timeout=...)`` and supervisors do) leaves no helper.
- ``SATURATE_CHILD_WALL_SECONDS``: wall-clock seconds before SIGALRM ends the process (a pattern
  file that loops forever).
- ``SATURATE_CHILD_MEMORY_BYTES``: the address-space limit (an allocating loop ends with
  MemoryError instead of filling the machine).
"""
from __future__ import annotations

import ctypes
import os
import signal

_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the parent's own cleanup remains
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


def apply_from_environment() -> None:
    """Ties this process to its parent and applies the limits the environment names; nothing
    when run by hand (no SATURATE_PARENT_PID)."""
    parent = os.environ.get("SATURATE_PARENT_PID")
    if parent and parent.isdigit():
        _die_with_parent(int(parent))
    wall = os.environ.get("SATURATE_CHILD_WALL_SECONDS")
    if wall and wall.isdigit() and int(wall) > 0:
        signal.alarm(int(wall))
    memory = os.environ.get("SATURATE_CHILD_MEMORY_BYTES")
    if memory and memory.isdigit() and int(memory) > 0:
        import resource

        limit = int(memory)
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
