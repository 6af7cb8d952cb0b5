#!/usr/bin/env python3
"""Runs a command under GNU time and samples the resident memory of its whole process tree.

    treepeak.py OUT -- command args...

Appends one line to OUT: wall seconds, the largest single process's peak RSS (GNU time's %M,
KiB), and the peak of the tree's summed RSS (KiB) seen by sampling /proc every 20 ms. A run
that spawns a grader per test holds the runner and several graders at once: %M sees only the
largest of them, the sum sees them all (a sample can miss a short-lived child, so it is a
lower bound). The command's output goes to stdout/stderr as given; its exit status is ours.
"""
import os
import subprocess
import sys
import tempfile
import time


def children_map():
    kids = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: the fields follow the last ')'.
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(name))
    return kids


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, IndexError, ValueError):
        return 0


def tree_rss(root):
    """The summed RSS of root's descendants (root is GNU time itself, left out)."""
    kids, total = children_map(), 0
    todo = list(kids.get(root, ()))
    while todo:
        pid = todo.pop()
        total += rss_kib(pid)
        todo.extend(kids.get(pid, ()))
    return total


def main():
    out, sep, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
    if sep != "--" or not cmd:
        sys.exit("usage: treepeak.py OUT -- command args...")
    fd, tfile = tempfile.mkstemp()
    os.close(fd)
    proc = subprocess.Popen(["/usr/bin/time", "-o", tfile, "-f", "%e %M", *cmd])
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc.pid))
        time.sleep(0.02)
    with open(tfile) as f:
        wall, maxrss = f.read().split()[-2:]
    os.unlink(tfile)
    with open(out, "a") as f:
        f.write(f"{wall} {maxrss} {peak}\n")
    sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
