"""CO-RE against a small BTF (user/trace/core_btf.h) relocates as the
kernel's whole BTF does.

A fresh load hands libbpf a BTF cut from the kernel's for its CO-RE
relocation. What each relocation made of its instruction is in libbpf's
debug log (FOOTPRINT_DEBUG_BPF=1: "relo #N: patched insn #I ... A -> B",
the kernel's type ids of bpf_core_type_id_kernel() among them). The
object is loaded afresh both ways, the second with
FOOTPRINT_DEBUG_FULL_BTF=1, and the two logs' lines must be the same
lines, as many times each; both runs trace.
"""

import collections
import os
import unittest

import fptest

DEBUG = "footprint: debug: CO-RE: "


def core_line(stderr):
    for line in stderr.splitlines():
        if line.startswith(DEBUG):
            return line[len(DEBUG):]
    raise AssertionError("no CO-RE debug line in %r" % stderr[-2000:])


def relocations(stderr):
    """libbpf's line on what each CO-RE relocation made of its
    instruction, counted; and its lines on the candidates it matched
    (whose kernel type ids differ where no relocation asks for them)."""
    done, matched = collections.Counter(), []
    for line in stderr.splitlines():
        if not line.startswith("libbpf: ") or "relo #" not in line:
            continue
        if "patched insn" in line or "substituting" in line:
            done[line] += 1
        elif "matching candidate" in line:
            matched.append(line)
    return done, matched


@unittest.skipUnless(os.geteuid() == 0, "footprint run needs root")
class CoreBtfTest(fptest.TraceCase):

    def load(self, full):
        env = dict(os.environ, FOOTPRINT_DEBUG="1", FOOTPRINT_DEBUG_BPF="1")
        env.pop("FOOTPRINT_DEBUG_FULL_BTF", None)
        if full:
            env["FOOTPRINT_DEBUG_FULL_BTF"] = "1"
        marker = self.path("full" if full else "small")
        r = self.trace(["touch", marker], opts=["--cold"], env=env)
        self.assertTrue(r.with_path(marker, type="open"), r.describe())
        err = r.stderr.decode("utf-8", "replace")
        return (core_line(err),) + relocations(err)

    def test_the_small_btf_relocates_as_the_kernels(self):
        line, small, matched = self.load(full=False)
        if not line.startswith("a small BTF"):
            self.skipTest("no small BTF on this kernel: %s" % line)
        kept, total = [int(w) for w in line.split() if w.isdigit()]
        self.assertLess(kept, total)
        line, full, _ = self.load(full=True)
        self.assertEqual(line, "the kernel's BTF (FOOTPRINT_DEBUG_FULL_BTF)")
        self.assertEqual(small, full)
        # not two empty logs: offsets, sizes, existence and kernel type
        # ids (bpf_core_type_id_kernel()) all among them
        patched = list(small.elements())
        self.assertGreater(len(patched), 500, patched[:5])
        for what in ("(LDX/ST/STX) off", "(ALU/ALU64) imm",
                     "(LDIMM64) imm64"):
            self.assertTrue(any(what in l for l in patched), what)
        self.assertTrue(any("<field_exists>" in l for l in matched))
        self.assertTrue(any("<target_type_id>" in l for l in matched))


if __name__ == "__main__":
    unittest.main()
