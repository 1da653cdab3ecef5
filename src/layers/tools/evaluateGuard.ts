/**
 * The Python that runs before the model's code in `evaluate`: a CPython
 * audit hook (PEP 578), installed first, that refuses every event by which
 * code changes the host or leaves the interpreter — starting or signalling
 * a process, writing, creating, deleting, renaming or re-permissioning a
 * file, opening a socket, loading native code through ctypes, opening an
 * SQLite file, adding another audit hook, reaching objects through the
 * garbage collector, tracing frames — plus the few operations CPython 3.11
 * audits no event for (`os.mkfifo`, `os.mknod`), replaced by refusals. Then
 * `open`, `io.open` and `os.open` are wrapped so reads stay inside the
 * working directory (the sandbox root): that part is a guard against
 * accidents, since the interpreter's own imports must read the standard
 * library.
 *
 * An audit hook is not an isolation boundary on its own: code that corrupts
 * the interpreter's memory, or finds an unaudited primitive, gets past it.
 * Where bubblewrap works the same code also runs in a read-only, network-less
 * namespace, so the hook is the second wall, not the only one.
 *
 * Argument 1 is the hint that names the file-writing tool; argument 2 is
 * the model's code, compiled as `<evaluate>`.
 *
 * @module
 */

/** The preamble, run with `python3 -I -S -E -c`. */
export const evaluateGuard = `
import sys as _sys
def _easyai_install(hint):
    import os, posix
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    what = {
        "os.system": "starting a process", "os.exec": "starting a process", "os.spawn": "starting a process",
        "os.posix_spawn": "starting a process", "os.fork": "starting a process", "os.forkpty": "starting a process",
        "pty.spawn": "starting a process", "subprocess.Popen": "starting a process", "os.startfile": "starting a process",
        "os.kill": "signalling a process", "os.killpg": "signalling a process",
        "os.remove": "deleting a file", "os.rmdir": "deleting a directory", "shutil.rmtree": "deleting a directory",
        "os.rename": "renaming a file", "shutil.move": "moving a file", "os.mkdir": "creating a directory",
        "os.chmod": "changing permissions", "os.chown": "changing ownership", "shutil.chown": "changing ownership",
        "os.chflags": "changing file flags", "os.lchflags": "changing file flags", "os.link": "creating a link",
        "os.symlink": "creating a link", "os.truncate": "truncating a file", "os.utime": "changing file times",
        "os.setxattr": "changing file attributes", "os.removexattr": "changing file attributes",
        "shutil.copyfile": "copying a file", "shutil.copymode": "copying permissions", "shutil.copystat": "copying permissions",
        "sqlite3.enable_load_extension": "loading native code", "sqlite3.load_extension": "loading native code",
        "sys.addaudithook": "replacing the guard", "sys.settrace": "tracing frames", "sys.setprofile": "tracing frames",
        "gc.get_objects": "reaching objects through the garbage collector",
        "gc.get_referrers": "reaching objects through the garbage collector",
        "gc.get_referents": "reaching objects through the garbage collector",
    }
    prefixes = (("socket.", "network access"), ("ctypes.", "native code through ctypes"))
    modules = {"ctypes": "native code through ctypes", "_ctypes": "native code through ctypes",
               "_posixsubprocess": "starting a process", "subprocess": "starting a process",
               "multiprocessing": "starting a process", "_multiprocessing": "starting a process"}
    def refuse(action, event):
        raise PermissionError("evaluate is read-only: %s is refused (%s). %s" % (action, event, hint))
    def hook(event, args):
        if event == "open":
            mode, flags = args[1], args[2]
            if (isinstance(mode, str) and any(c in "wax+" for c in mode.lower())) or \\
               (isinstance(flags, int) and flags & write_flags):
                refuse("opening %r for writing" % (args[0],), event)
        elif event == "import":
            if args[0] in modules:
                refuse(modules[args[0]], "import " + args[0])
        elif event == "sqlite3.connect":
            if args[0] not in (":memory:", "", b":memory:", b""):
                refuse("opening an SQLite file (only ':memory:' is allowed)", event)
        elif event in what:
            refuse(what[event], event)
        else:
            for prefix, action in prefixes:
                if event.startswith(prefix):
                    refuse(action, event)
    _sys.addaudithook(hook)
    def unaudited(action, name):
        def refused(*args, **kwargs):
            refuse(action, name)
        return refused
    for name in ("mkfifo", "mknod"):
        setattr(os, name, unaudited("creating a special file", "os." + name))
        setattr(posix, name, unaudited("creating a special file", "os." + name))
    import builtins, io
    root = os.path.realpath(os.getcwd())
    def inside(path):
        if isinstance(path, int):
            return
        name = os.fsdecode(path) if isinstance(path, bytes) else os.fspath(path)
        real = os.path.realpath(name)
        if real != root and not real.startswith(root + os.sep):
            raise PermissionError("evaluate may only read files inside the sandbox; %r is outside it" % (name,))
    real_open = builtins.open
    def guarded_open(file, mode="r", *args, **kwargs):
        if any(c in "wax+" for c in str(mode).lower()):
            refuse("open(%r, %r)" % (file, mode), "open")
        inside(file)
        return real_open(file, mode, *args, **kwargs)
    builtins.open = guarded_open
    io.open = guarded_open
    real_os_open = os.open
    def guarded_os_open(path, flags, *args, **kwargs):
        inside(path)
        return real_os_open(path, flags, *args, **kwargs)
    os.open = guarded_os_open
_easyai_install(_sys.argv[1])
del _easyai_install
exec(compile(_sys.argv[2], "<evaluate>", "exec"), {"__name__": "__main__"})
`
