"""Helper processes are bounded and die with saturate (python/saturate/child_guard.py): a pattern
file that loops or allocates without end fails `pm compile` with one clear line within its
limit, and killing saturate leaves no Python child behind."""
import os
import pathlib
import signal
import subprocess
import time

LOOP = "while True:\n    pass\n"
ALLOCATE = "blocks = []\nwhile True:\n    blocks.append(bytearray(64 << 20))\n"


def children_of(pid: int) -> list[int]:
    found = []
    for entry in pathlib.Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_pattern_file_that_loops_fails_within_its_time_limit(saturate, tmp_path):
    source = tmp_path / "loop.py"
    source.write_text(LOOP)
    started = time.monotonic()
    result = saturate("pm", "compile", source, "--time-limit", "2", timeout=60)
    assert time.monotonic() - started < 30
    assert result.returncode == 1
    assert "did not finish within 2 s" in result.stderr
    assert not (tmp_path / "loop.pmb").exists()


def test_a_pattern_file_that_allocates_fails_at_its_memory_limit(saturate, tmp_path):
    source = tmp_path / "allocate.py"
    source.write_text(ALLOCATE)
    result = saturate("pm", "compile", source, "--memory-limit", "1024", timeout=120)
    assert result.returncode == 1
    assert "allocate.py:3: error: MemoryError: the pattern file used more memory than its limit" \
        in result.stderr
    assert not (tmp_path / "allocate.pmb").exists()


def test_killing_saturate_kills_its_python_child(saturate_program, tmp_path):
    source = tmp_path / "loop.py"
    source.write_text(LOOP)
    parent = subprocess.Popen([str(saturate_program), "pm", "compile", str(source),
                               "--time-limit", "300"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children = []
    try:
        deadline = time.monotonic() + 30
        while not children and time.monotonic() < deadline:
            time.sleep(0.1)
            children = children_of(parent.pid)
        assert children, "the PyPM front end did not start"
        time.sleep(1.0)  # let it import and arm its parent-death signal
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 2
        while any(alive(c) for c in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(c) for c in children)
    finally:
        for child in children:
            if alive(child):
                os.kill(child, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
