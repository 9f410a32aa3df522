"""peak_rss.py - what the bomb tests of tests/hostile share: running a
command in a child of its own to read its peak RSS, and telling a
sanitizer build, whose shadow memory and quarantine (ASan keeps up to
256 MB of freed blocks) are part of the process's RSS, so that memory
bounds are the plain build's to check and a sanitizer build checks each
refusal alone."""
import os

LIMIT_KB = 512 * 1024


def sanitized(binary):
    """1 when binary was built with a sanitizer."""
    with open(binary, "rb") as f:
        return any(tag in f.read() for tag in (b"__asan_init", b"__tsan_init", b"__msan_init"))


def peak_kb(cmd, stdin_path=None):
    """Runs cmd in a child of its own; returns (exit, output, peak RSS in KB)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        if stdin_path:
            fd = os.open(stdin_path, os.O_RDONLY)
            os.dup2(fd, 0)
        os.dup2(w, 1)
        os.dup2(w, 2)
        os.execv(cmd[0], cmd)
    os.close(w)
    out = b""
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        out += b
    os.close(r)
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace"), usage.ru_maxrss
