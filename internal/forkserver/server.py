# The fork server of agentv's Python graders (internal/forkserver). It runs under the
# interpreter and environment of the graders it serves and forks a fresh child for each call,
# which runs the script as `python script.py args...` would. Single-threaded on purpose: a
# process with threads must not fork.
#
# Requests arrive on the SOCK_SEQPACKET socket at fd 3, one datagram each, with four
# descriptors (SCM_RIGHTS): the call's stdin, stdout and stderr, and a status pipe. The
# datagram is NUL-separated fields: cwd, argc, argv..., the environment's NAME=value entries.
# On the status pipe the server writes "P<pid>\n" once the child leads its own process
# group, then "S<wait status>\n" when it has reaped it. EOF on fd 3 means agentv is gone.
import os
import signal
import socket
import sys

MAX_REQUEST = 1 << 20


def _preimport():
    # --preimport a,b: modules loaded once here, shared copy-on-write by every child.
    if len(sys.argv) > 2 and sys.argv[1] == "--preimport":
        for name in sys.argv[2].split(","):
            try:
                __import__(name)
            except Exception:
                pass  # a grader that needs it fails as it would spawned


def _exit_code(exc):
    # What the interpreter does with SystemExit at top level.
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:
        pass
    return 1


def _print_exception(exc, path):
    # As an uncaught exception is reported (sys.excepthook, which a script may replace), with
    # the frames of this server cut off, so the traceback starts at the script.
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != path:
        tb = tb.tb_next
    try:
        exc.__traceback__ = tb  # the default hook prints this one, not its argument
        sys.excepthook(type(exc), exc, tb)
    except Exception:
        pass


def _run_main(path):
    # What `python script.py` does with the script: a fresh __main__ module whose __file__ is
    # the absolute path, the code compiled under that name and run in the module's namespace.
    import builtins
    import types
    from importlib.machinery import SourceFileLoader

    main = types.ModuleType("__main__")
    main.__file__ = path
    main.__cached__ = None
    main.__builtins__ = builtins
    main.__loader__ = SourceFileLoader("__main__", path)
    main.__spec__ = None
    sys.modules["__main__"] = main
    with open(path, "rb") as f:
        source = f.read()
    exec(compile(source, path, "exec", dont_inherit=True), main.__dict__)


def _child(fds, cwd, argv, env):
    # Runs in the forked child; never returns.
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.setpgid(0, 0)
        for i in range(3):
            os.dup2(fds[i], i)
        os.closerange(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 4096)
        if cwd:  # else agentv's own, which the server started in
            os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        script = argv[1]
        path = os.path.abspath(script)
        sys.argv = argv[1:]
        if not getattr(sys.flags, "safe_path", False):
            # The script's directory, where `-c` put "" (PYTHONSAFEPATH puts neither).
            sys.path[0] = os.path.dirname(os.path.realpath(script))
        try:
            _run_main(path)
            code = 0
        except SystemExit as exc:
            code = _exit_code(exc)
        except KeyboardInterrupt as exc:
            _print_exception(exc, path)
            # The interpreter ends by SIGINT then, so its parent sees the signal.
            code = -signal.SIGINT
        except BaseException as exc:
            _print_exception(exc, path)
            code = 1
        try:
            import threading

            threading._shutdown()
        except Exception:
            pass
        try:
            import atexit

            atexit._run_exitfuncs()
        except Exception:
            pass
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                # A closed pipe: the interpreter reports it and exits 120.
                code = 120 if code == 0 else code
    finally:
        if code == -signal.SIGINT:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
            code = 130
        os._exit(code)


def _parse(data):
    fields = data.decode("utf-8", "surrogateescape").split("\0")
    cwd = fields[0]
    argc = int(fields[1])
    argv = fields[2 : 2 + argc]
    env = {}
    for kv in fields[2 + argc :]:
        name, sep, value = kv.partition("=")
        if sep:
            env[name] = value
    return cwd, argv, env


def main():
    _preimport()
    ctl = socket.socket(fileno=3)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    os.set_blocking(wake_r, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    calls = {}  # pid -> status pipe
    import select

    while True:
        try:
            ready, _, _ = select.select([ctl, wake_r], [], [])
        except InterruptedError:
            continue
        if wake_r in ready:
            try:
                os.read(wake_r, 4096)
            except BlockingIOError:
                pass
        while calls:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            st = calls.pop(pid, None)
            if st is not None:
                try:
                    os.write(st, b"S%d\n" % status)
                except OSError:
                    pass
                os.close(st)
        if ctl not in ready:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(ctl, MAX_REQUEST, 4)
        except InterruptedError:
            continue
        if not data:
            return  # agentv closed its end: it is gone
        if len(fds) != 4:
            for fd in fds:
                os.close(fd)
            continue
        try:
            cwd, argv, env = _parse(data)
        except Exception:
            for fd in fds:
                os.close(fd)  # the status pipe's EOF tells agentv the call failed
            continue
        pid = os.fork()
        if pid == 0:
            _child(fds, cwd, argv, env)
        try:
            os.setpgid(pid, pid)  # also here: agentv may kill the group as soon as it knows pid
        except OSError:
            pass
        for fd in fds[:3]:
            os.close(fd)
        calls[pid] = fds[3]
        try:
            os.write(fds[3], b"P%d\n" % pid)
        except OSError:
            pass


main()
