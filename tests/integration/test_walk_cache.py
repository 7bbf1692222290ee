"""Issue 11: the kernel caches the walk of a task's cwd and of a dirfd.

A relative path is made absolute from the names of the directory it is
relative to. The kernel keeps the last walk of each and reuses it while
the directory, the task's root and a global generation are unchanged;
the generation is bumped by any process on the machine that renames or
removes a directory, mounts, changes its cwd or root, or changes
namespace. A cached walk used after such a change would put a file
under a name it does not have: each test here makes that change between
two relative mkdirs (an open is reported under the file it returned) and checks the path of the second one.

Every run is footprint as root with the SUDO_* variables of nobody, so
the command runs as nobody. Needs root and BPF (see sudo_util.py).
"""

import json
import os
import shutil
import subprocess
import threading
import unittest

import fptest
import sudo_util as su

TEST_BIN = os.environ.get("FOOTPRINT_TEST_BIN") or os.path.join(
    os.path.dirname(__file__), "..", "..", "build", "tests")
NOBODY = su.nobody()


class WalkCacheTest(unittest.TestCase):

    def setUp(self):
        su.check_binary()
        self.sb = su.Sandbox(self)
        self.env = su.sudo_env(NOBODY)
        # nobody must be able to run the probe wherever the checkout is
        self.probe = os.path.join(self.sb.base, "fpprobe")
        shutil.copy(os.path.join(TEST_BIN, "fpprobe"), self.probe)
        os.chmod(self.probe, 0o755)
        self.n = 0

    def mkdirs(self, rel):
        """Directories under the watched root, nobody's."""
        path = self.sb.root
        for part in rel.split("/"):
            path = os.path.join(path, part)
            if not os.path.isdir(path):
                os.mkdir(path, 0o755)
                os.chown(path, NOBODY.pw_uid, NOBODY.pw_gid)
        return path

    def fifos(self, where=None):
        """Two FIFOs (outside the root unless where says): the probe says
        it is ready on the first, the test answers on the second once it
        has acted."""
        self.n += 1
        ready = os.path.join(where or self.sb.base, "ready-%d" % self.n)
        go = os.path.join(where or self.sb.base, "go-%d" % self.n)
        for f in (ready, go):
            os.mkfifo(f)
            os.chmod(f, 0o666)
        return ready, go

    def created_files(self, paths):
        """The probe's files f1, f2...: not its own opens (its libraries,
        the FIFOs)."""
        return [p for p in paths if p.startswith(self.sb.root + "/")
                and os.path.basename(p).startswith("f")]

    def run_walk(self, steps, act=None, kind="mkdir", fifo_dir=None,
                 moved=lambda p: p):
        """Trace `fpprobe walk STEPS`; act() runs, as root and outside the
        run, while the probe waits in its sync step. Returns the absolute
        paths of the probe's openat events, in order."""
        evpath = self.sb.out_path("events-%d.ndjson" % (self.n + 1))
        done = []
        t = None
        if act is not None:
            ready, go = self.fifos(fifo_dir)
            steps = [s.replace("SYNC", "sync:%s:%s" % (ready, go))
                     for s in steps]

            def helper():
                with open(ready, "rb") as f:
                    f.read(1)
                act()
                done.append(True)
                with open(moved(go), "wb") as f:
                    f.write(b"g")
            t = threading.Thread(target=helper, daemon=True)
            t.start()
        res = self.sb.run([self.probe, "walk"] + steps,
                          opts=["--events", evpath], env=self.env)
        if t is not None:
            t.join(5)
            self.assertTrue(done, "the probe never synced\n" + res.describe())
        self.assertIsNotNone(res.r, res.describe())
        self.assertIn("pid=", res.out, res.describe())
        self.assertNotIn("footprint", res.out, res.describe())
        with open(evpath, encoding="utf-8") as f:
            events = [json.loads(line) for line in f]
        paths = [e["path"] for e in events
                 if e["type"] == kind and e["comm"] == "fpprobe"
                 and e.get("ok")]
        return paths, res

    def test_rename_of_cwd_ancestor_inside_run(self):
        r = self.sb.root
        self.mkdirs("a/b")
        paths, res = self.run_walk(
            ["cd:%s/a/b" % r, "mk:f1", "mk:f2",
             "mv:%s/a:%s/c" % (r, r), "mk:f3"])
        self.assertEqual(paths, ["%s/a/b/f1" % r, "%s/a/b/f2" % r,
                                 "%s/c/b/f3" % r], res.describe())
        self.assertTrue(os.path.exists("%s/c/b/f3" % r))

    def test_created_file_after_rename_of_its_directory_outside_run(self):
        # through a symlink, the path reported is the fd's: the walk of
        # the file's directory, from the cache (slot FP_WC_FILE). The
        # FIFOs are in that directory, so that the sync's own write open
        # keeps the entry; a rename of an ancestor by a process outside
        # the run must end its use
        r = self.sb.root
        d = self.mkdirs("a/b/d")
        os.symlink("d", "%s/a/b/l" % r)
        paths, res = self.run_walk(
            ["cd:%s/a/b" % r, "cr:l/f1", "cr:l/f2", "SYNC", "cr:l/f3"],
            act=lambda: os.rename("%s/a" % r, "%s/c" % r), kind="open",
            fifo_dir=d, moved=lambda p: p.replace("/a/b/d/", "/c/b/d/"))
        paths = self.created_files(paths)
        self.assertEqual(paths, ["%s/a/b/d/f1" % r, "%s/a/b/d/f2" % r,
                                 "%s/c/b/d/f3" % r], res.describe())
        self.assertTrue(os.path.exists("%s/c/b/d/f3" % r))

    def test_created_file_in_a_sibling_directory_after_rename_outside_run(self):
        # git's objects/xx, tar's directories: a create in a directory
        # beside the last one takes the parent's walk from the cached
        # entry of the sibling (fp_walk_sibling). f2 is that; f3 comes
        # after root renamed the grandparent outside the run, when the
        # entry (d1's, from the sync's FIFOs) must not serve
        r = self.sb.root
        d1 = self.mkdirs("a/b/d1")
        self.mkdirs("a/b/d2")
        os.symlink("d1", "%s/a/b/l1" % r)
        os.symlink("d2", "%s/a/b/l2" % r)
        paths, res = self.run_walk(
            ["cd:%s/a/b" % r, "cr:l1/f1", "cr:l2/f2", "SYNC", "cr:l2/f3"],
            act=lambda: os.rename("%s/a" % r, "%s/c" % r), kind="open",
            fifo_dir=d1, moved=lambda p: p.replace("/a/b/d1/", "/c/b/d1/"))
        paths = self.created_files(paths)
        self.assertEqual(paths, ["%s/a/b/d1/f1" % r, "%s/a/b/d2/f2" % r,
                                 "%s/c/b/d2/f3" % r], res.describe())
        self.assertTrue(os.path.exists("%s/c/b/d2/f3" % r))

    def test_rename_of_cwd_ancestor_outside_run(self):
        r = self.sb.root
        self.mkdirs("a/b")
        paths, res = self.run_walk(
            ["cd:%s/a/b" % r, "mk:f1", "mk:f2", "SYNC", "mk:f3"],
            act=lambda: os.rename("%s/a" % r, "%s/c" % r))
        self.assertEqual(paths, ["%s/a/b/f1" % r, "%s/a/b/f2" % r,
                                 "%s/c/b/f3" % r], res.describe())
        self.assertTrue(os.path.exists("%s/c/b/f3" % r))
        # the move itself was outside the run: the receipt must not call
        # the new file explained by the old name
        self.assertEqual(res.rc, su.EXIT_VERDICT, res.describe())

    def test_rename_of_cwd_ancestor_through_io_uring(self):
        r = self.sb.root
        self.mkdirs("a/b")
        paths, res = self.run_walk(
            ["cd:%s/a/b" % r, "mk:f1", "mk:f2",
             "urmv:%s/a:%s/c" % (r, r), "mk:f3"])
        if "errno=" in res.err and "io_uring" in res.err:
            self.skipTest("io_uring is not available here: " + res.err)
        self.assertEqual(paths, ["%s/a/b/f1" % r, "%s/a/b/f2" % r,
                                 "%s/c/b/f3" % r], res.describe())
        self.assertTrue(os.path.exists("%s/c/b/f3" % r))

    def rename32(self):
        return fptest.build_i386(self, "rename32", self.sb.base, cflags=())

    def test_rename_of_cwd_ancestor_by_32bit_process(self):
        r = self.sb.root
        self.mkdirs("a/b")
        prog = self.rename32()

        def act():
            res = subprocess.run([prog, "%s/a" % r, "%s/c" % r])
            self.assertEqual(res.returncode, 0)
        paths, res = self.run_walk(
            ["cd:%s/a/b" % r, "mk:f1", "mk:f2", "SYNC", "mk:f3"], act=act)
        self.assertTrue(os.path.isdir("%s/c/b" % r))
        self.assertEqual(paths, ["%s/a/b/f1" % r, "%s/a/b/f2" % r,
                                 "%s/c/b/f3" % r], res.describe())

    def test_chdir_back_and_forth(self):
        r = self.sb.root
        self.mkdirs("x/y")
        self.mkdirs("z")
        steps, want = [], []
        for i in range(6):
            d = "x/y" if i % 2 == 0 else "z"
            steps += ["cd:%s/%s" % (r, d), "mk:f%d" % i]
            want.append("%s/%s/f%d" % (r, d, i))
        # fchdir-free relative chdir too: "..", then back down
        steps += ["cd:..", "mk:f6", "cd:z", "mk:f7"]
        want += ["%s/f6" % r, "%s/z/f7" % r]
        paths, res = self.run_walk(steps)
        self.assertEqual(paths, want, res.describe())

    def test_dirfd_renamed_between_openats(self):
        r = self.sb.root
        self.mkdirs("d/e")
        paths, res = self.run_walk(
            ["dir:%s/d/e" % r, "at:f1", "at:f2", "SYNC", "at:f3",
             "mv:%s/g:%s/h" % (r, r), "at:f4"],
            act=lambda: os.rename("%s/d" % r, "%s/g" % r))
        self.assertEqual(paths, ["%s/d/e/f1" % r, "%s/d/e/f2" % r,
                                 "%s/g/e/f3" % r, "%s/h/e/f4" % r],
                         res.describe())
        self.assertTrue(os.path.exists("%s/h/e/f4" % r))

    def test_two_dirfds_and_cwd_interleaved(self):
        r = self.sb.root
        self.mkdirs("p/q")
        self.mkdirs("s")
        paths, res = self.run_walk(
            ["cd:%s/s" % r, "dir:%s/p/q" % r, "at:f1", "mk:f2",
             "dir:%s/p" % r, "at:f3", "dir:%s/p/q" % r, "at:f4",
             "mk:f5"])
        self.assertEqual(paths, ["%s/p/q/f1" % r, "%s/s/f2" % r,
                                 "%s/p/f3" % r, "%s/p/q/f4" % r,
                                 "%s/s/f5" % r], res.describe())

    def test_unshare_mount_bind(self):
        r = self.sb.root
        self.mkdirs("m")
        self.mkdirs("src")
        paths, res = self.run_walk(
            ["cd:%s/m" % r, "mk:f1", "mk:f2",
             "userns-bind:%s/src:%s/m" % (r, r),
             # the cwd is still the directory under the mount
             "mk:f3",
             # now the bound directory, reached through its mountpoint
             "cd:%s/m" % r, "mk:f4", "mk:f5"])
        if "errno=" in res.err and "unshare" in res.err:
            self.skipTest("no unprivileged user namespaces here")
        self.assertEqual(paths, ["%s/m/f%d" % (r, i) for i in range(1, 6)],
                         res.describe())
        self.assertTrue(os.path.exists("%s/m/f3" % r))
        self.assertTrue(os.path.exists("%s/src/f4" % r))
        self.assertFalse(os.path.exists("%s/m/f4" % r))

    # A descent by dirfd (mkdirat, then openat of the new directory) is
    # served by extending the walk of the parent by one name. The names
    # must be those a walk from the directory itself gives: whole, or cut
    # at the same place (4096 bytes with the name passed, 2048 names).
    WALK_ROOM = 4096
    WALK_NAMES = 2048

    def expected_at(self, name, level, passed):
        """(path, truncated) of a call passing `passed` relative to the
        directory `level` names `name` deep under the root, from the
        documented walk limits."""
        top = [c for c in self.sb.root.split("/") if c]
        comps = [name] * level + top[::-1]  # leaf first, as walked
        room = self.WALK_ROOM - (len(passed) + 1)
        kept, used = [], 0
        for c in comps:
            if used + len(c) + 1 > room or len(kept) == self.WALK_NAMES:
                break
            kept.append(c)
            used += len(c) + 1
        # the walk also stops when its 2048th step would be the root
        cut = len(kept) < len(comps) or len(kept) + 1 >= self.WALK_NAMES
        return ("/" + "/".join(kept[::-1] + [passed]), cut)

    def expected_descent(self, name, depth):
        """What each mkdirat of `down:name:depth` under the root must be
        reported as: (path, truncated)."""
        return [self.expected_at(name, i, name) for i in range(depth)]

    def descent(self, name, depth, steps_after=(), kind="mkdir"):
        """Trace `down:name:depth`, then steps_after; the (path, truncated)
        of the probe's successful events of kind, in order."""
        evpath = self.sb.out_path("events-down-%d-%d.ndjson"
                                  % (len(name), self.n))
        self.n += 1
        # deeper than shutil.rmtree can recurse: rm goes first
        self.addCleanup(subprocess.run,
                        ["rm", "-rf", os.path.join(self.sb.root, name)])
        res = self.sb.run(
            [self.probe, "walk", "dir:" + self.sb.root,
             "down:%s:%d" % (name, depth)] + list(steps_after),
            opts=["--events", evpath], env=self.env)
        self.assertIsNotNone(res.r, res.describe())
        with open(evpath, encoding="utf-8") as f:
            events = [json.loads(line) for line in f]
        return [(e["path"], bool(e.get("path_truncated")))
                for e in events if e["type"] == kind
                and e["comm"] == "fpprobe" and e.get("ok")], res

    def check_descent(self, name, depth):
        got, res = self.descent(name, depth)
        want = self.expected_descent(name, depth)
        self.assertEqual(len(got), depth, res.describe())
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertEqual(g, w, "level %d of %d" % (i, depth))
        self.assertTrue(want[-1][1], "the descent must reach the cut")
        self.assertFalse(want[0][1])

    def test_descent_by_dirfd_past_the_name_limit(self):
        # 2,100 one-letter names: cut by the number of names
        self.check_descent("d", 2100)

    def test_descent_by_dirfd_past_the_room_with_long_names(self):
        # names that do not divide the room: each cut drops a whole name
        self.check_descent("n" * 255, 24)
        self.check_descent("m" * 100, 50)

    def test_descent_then_rename_of_an_ancestor(self):
        r = self.sb.root
        got, res = self.descent(
            "e", 3, ["mv:%s/e:%s/f" % (r, r), "down:g:2"])
        self.assertEqual([p for p, _ in got],
                         ["%s/e" % r, "%s/e/e" % r, "%s/e/e/e" % r,
                          "%s/f/e/e/g" % r, "%s/f/e/e/g/g" % r],
                         res.describe())

    # Back up (openat(fd, "..")), the cached walk of the child serves the
    # parent: its names after the first, and where it was cut, a walk
    # from where it stopped. Every level must read as a fresh walk would.
    def check_ascent(self, name, depth, passed):
        got, res = self.descent(name, depth,
                                ["up:%s:%d" % (passed, depth)])
        want = [self.expected_at(name, level, passed)
                for level in range(depth - 1, -1, -1)]
        ups = got[depth:]
        self.assertEqual(len(ups), depth, res.describe())
        for i, (g, w) in enumerate(zip(ups, want)):
            self.assertEqual(g, w, "%d levels up of %d" % (i + 1, depth))
        self.assertTrue(want[0][1], "the ascent must start past the cut")
        self.assertFalse(want[-1][1])

    def test_ascent_by_dotdot_from_past_the_cut(self):
        # one-letter names: the cut by the number of names, then by room
        self.check_ascent("d", 2100, "u")

    def test_ascent_with_long_names_and_another_room(self):
        # the mkdir passes a longer name than the descent: less room
        self.check_ascent("n" * 100, 50, "x" * 200)
        self.check_ascent("m" * 255, 24, "u")

    def mounted_chain(self, name, depth, mounts):
        """name nested depth deep under the root, nobody's, with a tmpfs
        mounted on the directory at each depth in mounts (made by fd: the
        path outgrows PATH_MAX); unmounted and removed at cleanup."""
        uid, gid = NOBODY.pw_uid, NOBODY.pw_gid
        fd = os.open(self.sb.root, os.O_RDONLY | os.O_DIRECTORY)
        top = os.path.join(self.sb.root, name)
        self.addCleanup(subprocess.run, ["rm", "-rf", top])
        for level in range(1, depth + 1):
            os.mkdir(name, 0o755, dir_fd=fd)
            os.chown(name, uid, gid, dir_fd=fd)
            if level in mounts:
                target = "/proc/%d/fd/%d/%s" % (os.getpid(), fd, name)
                subprocess.run(["mount", "-t", "tmpfs", "-o",
                                "mode=755,uid=%d,gid=%d" % (uid, gid),
                                "fp-walk", target], check=True)
                # innermost first: cleanups run last-in, first-out
                self.addCleanup(subprocess.run,
                                ["umount", "-l", "--", top + ("/" + name) *
                                 (level - 1)] if len(top) + 2 * level < 4000
                                else ["true"])
            sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = sub
        os.close(fd)

    def expected_crossing(self, name, level, passed, mounts):
        """expected_at() for a chain with mounts: a mount root costs the
        walk a step, which writes no name, before its mountpoint's. A
        third value: whether the walk stopped on its steps, not room."""
        top = [c for c in self.sb.root.split("/") if c]
        steps = []
        for d in range(level, 0, -1):
            if d in mounts:
                steps.append(None)
            steps.append(name)
        steps += top[::-1]
        room = self.WALK_ROOM - (len(passed) + 1)
        kept, used, loops, cut, by_steps = [], 0, 0, False, False
        for c in steps:
            if loops == self.WALK_NAMES:
                cut = by_steps = True
                break
            loops += 1
            if c is None:
                continue
            if used + len(c) + 1 > room:
                cut = True
                break
            kept.append(c)
            used += len(c) + 1
        else:
            # the step that finds the root is a step too
            cut = by_steps = loops + 1 >= self.WALK_NAMES
        return ("/" + "/".join(kept[::-1] + [passed]), cut, by_steps)

    def test_ascent_across_mounts(self):
        # each mount root met on the way up is a step with no name: an
        # ascent that goes on from a cut walk must count them as one does
        name, depth, mounts = "c", 2100, (100, 400, 1500)
        self.mounted_chain(name, depth, mounts)
        evpath = self.sb.out_path("events-mounts.ndjson")
        res = self.sb.run(
            [self.probe, "walk", "dir:" + self.sb.root,
             "in:%s:%d" % (name, depth), "up:u:%d" % depth],
            opts=["--events", evpath], env=self.env)
        self.assertIsNotNone(res.r, res.describe())
        with open(evpath, encoding="utf-8") as f:
            got = [(e["path"], bool(e.get("path_truncated")))
                   for e in map(json.loads, f) if e["type"] == "mkdir"
                   and e["comm"] == "fpprobe" and e.get("ok")]
        want = [self.expected_crossing(name, level, "u", mounts)
                for level in range(depth - 1, -1, -1)]
        self.assertEqual(len(got), depth, res.describe())
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertEqual(g, w[:2], "%d levels up of %d" % (i + 1, depth))
        # the limit of steps, not of room, is met on the way
        self.assertTrue(any(w[2] for w in want))

    # rm -rf: each rmdir, of the directory just left, bumps the
    # generation, which the thread's own walk of the parent survives.
    def check_removal_upwards(self, name, depth):
        got, res = self.descent(name, depth, ["rmup:%s:%d" % (name, depth)],
                                kind="unlink")
        want = [self.expected_at(name, level, name)
                for level in range(depth - 1, -1, -1)]
        self.assertEqual(len(got), depth, res.describe())
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertEqual(g, w, "rmdir %d of %d" % (i + 1, depth))
        self.assertTrue(want[0][1])
        self.assertFalse(
            os.path.exists(os.path.join(self.sb.root, name)),
            "the probe removed the whole tree")

    def test_removal_upwards_like_rm_rf(self):
        self.check_removal_upwards("d", 2100)
        self.check_removal_upwards("r" * 255, 24)

    def test_ascent_after_a_rename_of_an_ancestor(self):
        # the cached walk of the bottom directory holds the old name: the
        # ascent after the rename must not serve it
        r = self.sb.root
        got, res = self.descent(
            "e", 3, ["mv:%s/e:%s/f" % (r, r), "up:u:3"])
        self.assertEqual([p for p, _ in got],
                         ["%s/e" % r, "%s/e/e" % r, "%s/e/e/e" % r,
                          "%s/f/e/u" % r, "%s/f/u" % r, "%s/u" % r],
                         res.describe())


if __name__ == "__main__":
    unittest.main()
