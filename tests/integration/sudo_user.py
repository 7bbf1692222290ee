"""A real unprivileged user who may run sudo, for running the command
blocks of README.md and docs/ exactly as a user types them: `sudo
footprint run ...` goes through the real sudo (its environment, its
secure_path, its use_pty), and `footprint lock`/`promote` run as that user
without root.

The user is made for the test module (useradd, no password, so nobody
can log in as it) with a home of its own under /tmp, and is allowed
`sudo` without a password by a file in /etc/sudoers.d whose secure_path
starts with a root-owned directory holding the footprint under test, so
that `sudo footprint` and `footprint` name the same binary. close()
removes the user, the sudoers file and the directories; so does exit.
"""

import atexit
import os
import pwd
import shutil
import subprocess
import tempfile

import sudo_util as su

SUDOERS_DIR = "/etc/sudoers.d"


class SudoUser:
    def __init__(self, prefix="fpuser"):
        if not shutil.which("sudo") or not shutil.which("useradd"):
            su.cannot_test("sudo and useradd are needed for a real "
                           "invoking user")
        if not os.path.isdir(SUDOERS_DIR):
            su.cannot_test("%s is not there: sudo reads no drop-ins" %
                           SUDOERS_DIR)
        self.name = "%s%d" % (prefix, os.getpid())
        self.sudoers = os.path.join(SUDOERS_DIR, self.name)
        self.home = os.path.realpath(
            tempfile.mkdtemp(prefix=self.name + "-home-", dir="/tmp"))
        self.bin = os.path.realpath(
            tempfile.mkdtemp(prefix=self.name + "-bin-", dir="/tmp"))
        self.pw = None
        atexit.register(self.close)
        os.chmod(self.bin, 0o755)
        shutil.copy(su.FOOTPRINT, os.path.join(self.bin, "footprint"))
        os.chmod(os.path.join(self.bin, "footprint"), 0o755)
        p = subprocess.run(["useradd", "-M", "-N", "-g", "users", "-d",
                            self.home, "-s", "/bin/sh", self.name],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode:
            su.cannot_test("useradd failed: %s" % p.stdout.decode().strip())
        self.pw = pwd.getpwnam(self.name)
        os.chown(self.home, self.pw.pw_uid, self.pw.pw_gid)
        os.chmod(self.home, 0o755)
        tmp = self.sudoers + ".tmp"
        with open(tmp, "w") as f:
            f.write("%s ALL=(root) NOPASSWD: ALL\n"
                    'Defaults:%s secure_path="%s:/usr/sbin:/usr/bin:'
                    '/sbin:/bin"\n' % (self.name, self.name, self.bin))
        os.chmod(tmp, 0o440)
        p = subprocess.run(["visudo", "-cf", tmp], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        if p.returncode:
            os.unlink(tmp)
            raise AssertionError("visudo refused the test's sudoers "
                                 "file: %s" % p.stdout.decode())
        os.rename(tmp, self.sudoers)

    def close(self):
        if os.path.exists(self.sudoers):
            os.unlink(self.sudoers)
        if self.pw is not None:
            subprocess.run(["userdel", self.name], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
            self.pw = None
        shutil.rmtree(self.home, ignore_errors=True)
        shutil.rmtree(self.bin, ignore_errors=True)

    def env(self):
        return {"HOME": self.home, "USER": self.name, "LOGNAME": self.name,
                "SHELL": "/bin/sh", "LANG": "C.UTF-8",
                "PATH": "%s:/usr/bin:/bin" % self.bin}

    def sh(self, script, cwd=None, timeout=600):
        """script run by sh as the user, in cwd (default: home), from a
        clean login-like environment: (exit code, output as text)."""
        argv = ["sudo", "-u", self.name, "-H", "--", "env", "-i"] + \
            ["%s=%s" % kv for kv in self.env().items()] + \
            ["sh", "-c", 'cd "$1" && shift && eval "$1"', "sh",
             cwd or self.home, script]
        p = subprocess.run(argv, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace")

    def write(self, path, text, mode=0o644):
        """A file of the user's (its directories made as the user's)."""
        d = os.path.dirname(path)
        os.makedirs(d, exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        while True:
            os.chown(path, self.pw.pw_uid, self.pw.pw_gid)
            if path == self.home or os.path.dirname(path) == path:
                break
            path = os.path.dirname(path)
            if not path.startswith(self.home):
                break


def doc_block(doc, first_line):
    """The ```sh block of doc (a path under the tree) that starts with
    first_line, as written."""
    with open(os.path.join(su.TOP, doc), encoding="utf-8") as f:
        text = f.read()
    blocks = text.split("```sh\n")[1:]
    for b in blocks:
        body = b.split("```", 1)[0]
        if body.startswith(first_line):
            return body
    raise AssertionError("%s has no sh block starting %r" %
                         (doc, first_line))
