"""The command's terminal (user/trace/cmdterm.h, issue 28 "terminal
injection").

A command that kept the caller's terminal as its controlling tty could type
into the caller's shell with TIOCSTI, to be run once footprint exits. Each
test gives footprint a pseudo-terminal of its own as the caller's terminal
(footprint is its session leader, as under a login shell), runs the command
as the unprivileged invoking user (a root footprint with sudo's variables,
as sudo_util does), and checks that:

- a command that tries TIOCSTI on its controlling terminal and on its
  standard fds puts nothing into the caller's terminal's input, with stdin
  a terminal (the command has a terminal of its own) and without (it has
  none);
- a `read` prompt is answered through the relay, the exit status comes
  through, the caller's settings are raw while the command runs and are
  back after it, after a forwarded SIGTERM and after a fatal signal;
- the window size is the caller's and follows it;
- pipes and files pass through byte for byte;
- a command that ends at once, on one CPU, starts every time.

On kernels with dev.tty.legacy_tiocsti = 0 an unprivileged TIOCSTI always
fails, so the injection itself cannot be shown there; what the command's
controlling terminal is can, and is checked either way.

Run as root from the top of the tree:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_terminal.py
"""

import errno
import fcntl
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, EXIT_VERDICT, EXIT_NOTRACE, PY  # noqa: E402

NOBODY = su.nobody()
INJECT = b"echo FP-INJECTED\n"

# What the command tries: TIOCSTI on its controlling terminal, then on each
# standard fd; it says what it found on stdout, as one JSON line.
STI = r"""
import fcntl, json, os, sys, termios
r = {}
# the controlling terminal: tty_nr of /proc/self/stat (0: none)
with open("/proc/self/stat") as f:
    nr = int(f.read().rsplit(")", 1)[1].split()[4])
r["ctty"] = [(nr >> 8) & 0xfff, (nr & 0xff) | ((nr >> 12) & 0xfff00)]
try:
    fd = os.open("/dev/tty", os.O_RDWR)
except OSError as e:
    r["ctty_errno"] = e.errno
else:
    n = 0
    try:
        for c in %r:
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
            n += 1
    except OSError as e:
        r["sti_ctty_errno"] = e.errno
    r["sti_ctty"] = n
for i in (0, 1, 2):
    try:
        fcntl.ioctl(i, termios.TIOCSTI, b"#")
        r["sti_%%d" %% i] = 0
    except OSError as e:
        r["sti_%%d" %% i] = e.errno
print("REPORT" + json.dumps(r), flush=True)
""" % INJECT


def legacy_tiocsti():
    """False where the kernel refuses TIOCSTI to the unprivileged."""
    try:
        with open("/proc/sys/dev/tty/legacy_tiocsti") as f:
            return f.read().strip() != "0"
    except OSError:
        return True  # before 6.2: no such switch, always allowed


class CallerTerminal:
    """A pseudo-terminal standing for the caller's, with footprint started
    on it as the session leader (its controlling terminal)."""

    def __init__(self, test, argv, env, cwd, rows=40, cols=100,
                 stdin=None, stdout=None):
        self.master, self.slave = os.openpty()
        self.set_size(rows, cols)
        self.before = termios.tcgetattr(self.slave)
        st = os.fstat(self.slave)
        self.rdev = [os.major(st.st_rdev), os.minor(st.st_rdev)]

        def ctty():
            fcntl.ioctl(self.slave, termios.TIOCSCTTY, 0)
        self.p = subprocess.Popen(
            argv, stdin=self.slave if stdin is None else stdin,
            stdout=self.slave if stdout is None else stdout,
            stderr=self.slave, env=env, cwd=cwd, start_new_session=True,
            preexec_fn=ctty)
        self.buf = b""
        test.addCleanup(self.close)

    def set_size(self, rows, cols):
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ,
                    struct.pack("HHHH", rows, cols, 0, 0))

    def close(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass

    def write(self, data):
        os.write(self.master, data)

    def read_some(self, timeout):
        r, _, _ = select.select([self.master], [], [], timeout)
        if not r:
            return False
        try:
            chunk = os.read(self.master, 4096)
        except OSError:
            chunk = b""
        self.buf += chunk
        return bool(chunk) or None

    def expect(self, pattern, timeout=15):
        rx = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = rx.search(self.buf)
            if m:
                self.buf = self.buf[m.end():]
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                if self.p.poll() == EXIT_NOTRACE:
                    su.cannot_test("footprint cannot trace (exit 125)")
                raise AssertionError("no %r on the terminal; got %r" %
                                     (pattern, self.buf[-2000:]))
            self.read_some(min(left, 0.2))

    def wait(self, timeout=20):
        """footprint's exit status, once what it wrote is read."""
        deadline = time.monotonic() + timeout
        while self.p.poll() is None and time.monotonic() < deadline:
            self.read_some(0.1)
        while self.read_some(0.1):
            pass
        rc = self.p.wait(1)
        if rc == EXIT_NOTRACE:
            su.cannot_test("footprint cannot trace (exit 125): %r" %
                           self.buf[-500:])
        return rc

    def typed(self):
        """Bytes waiting in the caller's terminal's input: what its shell
        would read next."""
        return struct.unpack("i", fcntl.ioctl(self.slave, termios.FIONREAD,
                                              b"\0\0\0\0"))[0]

    def is_raw(self):
        return not termios.tcgetattr(self.slave)[3] & termios.ICANON


class TerminalCase(unittest.TestCase):
    def setUp(self):
        su.check_binary()
        self.sb = su.Sandbox(self)

    def start(self, cmd, opts=(), **kw):
        argv, rpath = self.sb.argv(cmd, opts=["--timeout", "30s"] +
                                   list(opts))
        t = CallerTerminal(self, argv, su.sudo_env(NOBODY), self.sb.root,
                           **kw)
        return t, rpath

    def receipt(self, rpath):
        with open(rpath) as f:
            return json.load(f)


class TestInjection(TerminalCase):
    def report(self, t):
        return json.loads(t.expect(rb"REPORT(\{.*\})").group(1))

    def test_tiocsti_stays_in_the_commands_own_terminal(self):
        """stdin a terminal: the command's controlling terminal is one of
        its own; what it types there never reaches the caller's."""
        t, _ = self.start([PY, "-c", STI])
        r = self.report(t)
        rc = t.wait()
        self.assertEqual(t.typed(), 0, "the command typed into the "
                         "caller's terminal: %r" % r)
        self.assertNotEqual(r["ctty"], [0, 0], r)
        self.assertNotEqual(r["ctty"], t.rdev, "the command's controlling "
                            "terminal is the caller's")
        if legacy_tiocsti():
            # the attempt was real: it worked, on its own terminal
            self.assertEqual(r["sti_ctty"], len(INJECT), r)
        self.assertEqual(rc, EXIT_OK, t.buf)

    def test_no_terminal_when_stdin_is_not_one(self):
        """stdin not a terminal (stdout and stderr still the caller's):
        the command has no controlling terminal, and TIOCSTI on the
        caller's terminal, not its own, is refused."""
        t, _ = self.start([PY, "-c", STI], stdin=subprocess.DEVNULL)
        r = self.report(t)
        rc = t.wait()
        self.assertEqual(t.typed(), 0, "the command typed into the "
                         "caller's terminal: %r" % r)
        self.assertEqual(r["ctty"], [0, 0], r)
        self.assertEqual(r.get("ctty_errno"), errno.ENXIO, r)
        for fd in (1, 2):
            self.assertIn(r["sti_%d" % fd], (errno.EPERM, errno.EIO), r)
        self.assertEqual(rc, EXIT_OK, t.buf)


class TestRelay(TerminalCase):
    def test_read_prompt_exit_status_and_settings(self):
        t, rpath = self.start(["sh", "-c", 'printf "name? "; read x; '
                               'echo "got:$x"; exit 3'])
        t.expect(rb"name\? ")
        self.assertTrue(t.is_raw(), "the caller's terminal is not in raw "
                        "mode while the command runs")
        t.write(b"alice\r")
        t.expect(rb"got:alice\r\n")
        rc = t.wait()
        self.assertEqual(rc, EXIT_VERDICT, t.buf)
        self.assertEqual(self.receipt(rpath)["command"]["exit_code"], 3)
        self.assertEqual(termios.tcgetattr(t.slave), t.before,
                         "the caller's terminal settings are not restored")
        self.assertEqual(t.typed(), 0)

    def test_window_size_follows_the_callers(self):
        prog = ("import os, signal, sys\n"
                "def show(*_):\n"
                "    c, l = os.get_terminal_size(0)\n"
                "    print('SIZE %d %d' % (l, c), flush=True)\n"
                "signal.signal(signal.SIGWINCH, show)\n"
                "show()\n"
                "sys.stdin.readline()\n")
        t, _ = self.start([PY, "-c", prog], rows=33, cols=111)
        t.expect(rb"SIZE 33 111\r\n")
        # the kernel signals the caller's foreground group: footprint
        t.set_size(45, 132)
        t.expect(rb"SIZE 45 132\r\n")
        t.write(b"\r")
        self.assertEqual(t.wait(), EXIT_OK, t.buf)

    def test_settings_back_after_sigterm(self):
        t, rpath = self.start([PY, "-c", "import sys\n"
                               "print('READY', flush=True)\n"
                               "sys.stdin.readline()\n"])
        t.expect(rb"READY\r\n")
        self.assertTrue(t.is_raw())
        t.p.send_signal(signal.SIGTERM)
        t.wait()
        self.assertEqual(self.receipt(rpath)["command"]["signal"],
                         signal.SIGTERM)
        self.assertEqual(termios.tcgetattr(t.slave), t.before)

    def test_settings_back_after_a_fatal_signal(self):
        """A signal footprint does not handle ends it, and the caller's
        terminal still gets its settings back on the way out."""
        t, _ = self.start([PY, "-c", "import sys\n"
                           "print('READY', flush=True)\n"
                           "sys.stdin.readline()\n"])
        t.expect(rb"READY\r\n")
        self.assertTrue(t.is_raw())
        t.p.send_signal(signal.SIGUSR1)
        self.assertEqual(t.p.wait(20), -signal.SIGUSR1)
        self.assertEqual(termios.tcgetattr(t.slave), t.before)


class TestStart(TerminalCase):
    def test_a_quick_command_on_one_cpu_starts_every_time(self):
        """The monitor that launches the command on its terminal tells
        footprint its pid through a pidfd. It used to reap a command that
        ended at once before footprint had read the pid off it: on one
        CPU, 1 run of `true` in 5 never started (exit 125, "Protocol
        error"), and 1 in 20 of the checks under qemu."""
        cpu = min(os.sched_getaffinity(0))
        for i in range(20):
            argv, rpath = self.sb.argv(["true"])
            t = CallerTerminal(self, ["taskset", "-c", str(cpu)] + argv,
                               su.sudo_env(NOBODY), self.sb.root)
            rc = t.p.wait(30)
            t.read_some(0.1)
            self.assertEqual(rc, EXIT_OK, "run %d: %r" % (i, t.buf))
            self.assertEqual(self.receipt(rpath)["command"]["exit_code"], 0)
            t.close()


class TestPassThrough(TerminalCase):
    DATA = bytes(range(256)) * 64 + b"\r\n\x03\x04\x1a"

    def test_pipes_and_files_byte_for_byte(self):
        """No terminal anywhere: stdin a pipe, stdout and stderr files;
        each byte as it was, EOF at the end, the exit status as is."""
        out = self.sb.out_path("stdout.bin")
        err = self.sb.out_path("stderr.bin")
        argv, rpath = self.sb.argv(
            ["sh", "-c", "cat; printf 'E\\001\\377' >&2; exit 7"])
        with open(out, "wb") as o, open(err, "wb") as e:
            p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=o,
                                 stderr=e, cwd=self.sb.root,
                                 env=su.sudo_env(NOBODY))
            p.communicate(self.DATA, timeout=60)
        if p.returncode == EXIT_NOTRACE:
            su.cannot_test("footprint cannot trace (exit 125)")
        self.assertEqual(p.returncode, EXIT_VERDICT)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), self.DATA)
        with open(err, "rb") as f:
            self.assertIn(b"E\x01\xff", f.read())
        self.assertEqual(self.receipt(rpath)["command"]["exit_code"], 7)

    def test_stdout_a_file_with_stdin_a_terminal(self):
        """The terminal is the command's own, but stdout, a file, is not
        made part of it: no byte is turned into another."""
        out = self.sb.out_path("stdout.bin")
        with open(out, "wb") as o:
            t, _ = self.start(
                [PY, "-c", "import sys\n"
                 "sys.stdout.buffer.write(bytes(range(256)) * 4)\n"],
                stdout=o)
            self.assertEqual(t.wait(), EXIT_OK, t.buf)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), bytes(range(256)) * 4)


if __name__ == "__main__":
    unittest.main()
