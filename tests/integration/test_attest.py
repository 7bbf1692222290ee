"""In-toto attestations of footprint runs, checked by the real verifier.

A real unprivileged user (sudo_user.SudoUser) makes keys with Debian's
in-toto-keygen, a layout with in-toto's own Python classes signed with
in-toto-sign: a `build` step, whose link footprint writes, and an
inspection that runs the product and matches it against the build's
products. `sudo footprint run --attest` traces a real cmake build of a
small project; in-toto-verify passes, and fails (exit 1) when a product
is altered after the run, when a material the build read is not allowed
by the layout, and when the link is signed with another key. The DSSE
statement's signature is checked with `openssl pkeyutl`, and its JSON
against docs/attest.schema.json.

Run as root: FOOTPRINT=build/footprint /usr/bin/python3 -m unittest -v \\
    tests/integration/test_attest.py
"""

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fptest import cgroup2_mount  # noqa: E402
import sudo_user  # noqa: E402
import sudo_util as su  # noqa: E402

SCHEMA = os.path.join(su.TOP, "docs", "attest.schema.json")

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.13)
project(hello C)
add_executable(hello src/main.c)
"""
MAIN_C = """\
#include <stdio.h>
#include "msg.h"
int main(void) { puts(MSG); return 0; }
"""
MSG_H = '#define MSG "hello, attested"\n'

# run by /usr/bin/python3 as the user: a layout made with in-toto's own
# classes (the build step, then an inspection that runs the product and
# matches it with the build's products), written unsigned for in-toto-sign
MKLAYOUT = """\
import json, sys
from securesystemslib import interface
from in_toto.models.layout import Layout, Step, Inspection
from in_toto.models.metadata import Metablock
pub, keytype, materials, out = sys.argv[1:5]
key = list(interface.import_publickeys_from_file([pub], [keytype]).values())[0]
layout = Layout()
layout.set_relative_expiration(days=1)
layout.add_functionary_key(key)
step = Step(name="build")
step.pubkeys = [key["keyid"]]
step.expected_command = ["sh", "-c"]
for r in json.loads(materials):
    step.add_material_rule_from_string(r)
for r in ["CREATE build/*", "DISALLOW *"]:
    step.add_product_rule_from_string(r)
check = Inspection(name="check")
check.set_run_from_string("build/hello")
for r in ["MATCH build/hello WITH PRODUCTS FROM build",
          "DISALLOW build/hello", "ALLOW *"]:
    check.add_material_rule_from_string(r)
layout.steps = [step]
layout.inspect = [check]
Metablock(signed=layout).dump(out)
"""

ALLOW_SRC = ["ALLOW CMakeLists.txt", "ALLOW src/*", "DISALLOW *"]
# the build reads src/msg.h too: a layout that expects only .c files
ONLY_C = ["ALLOW CMakeLists.txt", "ALLOW src/*.c", "DISALLOW *"]
BUILD = "cmake -S . -B build >/dev/null && cmake --build build >/dev/null"
# the compiler's own temporary files: the verdict passes
FP_ALLOW = "--allow build/ --allow '/tmp/cc*'"


def tool(name):
    path = shutil.which(name, path="/usr/bin:/bin")
    if not path:
        su.cannot_test("%s is missing; run scripts/install-deps" % name)
    return path


class AttestTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        su.check_binary()
        for t in ("in-toto-keygen", "in-toto-sign", "in-toto-verify",
                  "cmake", "openssl"):
            tool(t)
        cls.user = sudo_user.SudoUser("fpattest")
        cls.addClassCleanup(cls.user.close)
        cls.keys = os.path.join(cls.user.home, "keys")
        cls.user.write(os.path.join(cls.user.home, "mklayout.py"),
                       MKLAYOUT)
        rc, out = cls.user.sh(
            "mkdir -p keys && cd keys && "
            "in-toto-keygen -b 2048 owner && "
            "in-toto-keygen -b 2048 builder && "
            "in-toto-keygen -t ed25519 edbuilder && "
            "in-toto-keygen -b 2048 other")
        if rc:
            raise AssertionError("in-toto-keygen: %s" % out)

    # ---- helpers ----

    def sh(self, script, cwd=None, want=0):
        rc, out = self.user.sh(script, cwd=cwd)
        if want is not None:
            self.assertEqual(rc, want, "%s\n%s" % (script, out))
        return rc, out

    def project(self):
        """A small cmake project of the user's: src/main.c includes
        src/msg.h."""
        d = os.path.join(self.user.home, "proj-%s" % uuid.uuid4().hex[:8])
        self.user.write(os.path.join(d, "CMakeLists.txt"), CMAKELISTS)
        self.user.write(os.path.join(d, "src", "main.c"), MAIN_C)
        self.user.write(os.path.join(d, "src", "msg.h"), MSG_H)
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def layout(self, pub, keytype, materials):
        """A layout signed by owner with in-toto-sign; its path."""
        name = "root-%s.layout" % uuid.uuid4().hex[:8]
        self.sh("/usr/bin/python3 mklayout.py keys/%s %s '%s' %s.unsigned "
                "&& in-toto-sign -f %s.unsigned -k keys/owner -o %s"
                % (pub, keytype, json.dumps(materials), name, name, name))
        return os.path.join(self.user.home, name)

    def verify(self, proj, layout, want):
        rc, out = self.sh("in-toto-verify --layout %s --layout-key "
                          "%s/owner.pub" % (layout, self.keys),
                          cwd=proj, want=None)
        self.assertEqual(rc, want, out)
        return out

    def keyid(self, key):
        with open(os.path.join(self.keys, key)) as f:
            text = f.read()
        p = subprocess.run(
            ["/usr/bin/python3", "-c",
             "import sys; from securesystemslib import interface as i; "
             "t = sys.argv[2]; "
             "k = i.import_publickeys_from_file([sys.argv[1]], [t]); "
             "print(list(k)[0])", os.path.join(self.keys, key + ".pub"),
             "ed25519" if text.startswith("{") else "rsa"],
            stdout=subprocess.PIPE, check=True)
        return p.stdout.decode().strip()

    def traced_build(self, proj, key, extra=""):
        """sudo footprint run --attest KEY ... -- the cmake build; the
        receipt's path (beside the project: outputs stay out of roots)."""
        receipt = proj + ".receipt.json"
        rc, out = self.sh("sudo footprint run %s --receipt %s --attest %s/%s "
                          "--attest-name build %s -- sh -c '%s'"
                          % (FP_ALLOW, receipt, self.keys, key, extra,
                             BUILD), cwd=proj, want=None)
        self.assertEqual(rc, su.EXIT_OK, out)
        self.addCleanup(os.unlink, receipt)
        return receipt

    # ---- the tests ----

    def test_cmake_build_verifies_and_fails_when_it_should(self):
        """RSA: in-toto-verify passes for the traced build; fails for an
        unexpected material, another key, an altered product."""
        proj = self.project()
        receipt = self.traced_build(proj, "builder")
        kid = self.keyid("builder")
        link = os.path.join(proj, "build.%s.link" % kid[:8])
        self.assertTrue(os.path.exists(link))
        self.assertEqual(os.stat(link).st_uid, self.user.pw.pw_uid,
                         "the link is the invoking user's")
        with open(link) as f:
            signed = json.load(f)["signed"]
        # what the build read as it was, not what it made
        self.assertEqual(sorted(signed["materials"]),
                         ["CMakeLists.txt", "src/main.c", "src/msg.h"])
        self.assertIn("build/hello", signed["products"])
        with open(os.path.join(proj, "build", "hello"), "rb") as f:
            self.assertEqual(signed["products"]["build/hello"],
                             {"sha256": hashlib.sha256(f.read())
                              .hexdigest()})
        self.assertEqual(signed["byproducts"]["return-value"], 0)
        self.assertEqual(signed["byproducts"]["verdict"], "ok")
        self.assertEqual(signed["command"], ["sh", "-c", BUILD])
        self.assertIn("kernel", signed["environment"])

        good = self.layout("builder.pub", "rsa", ALLOW_SRC)
        self.verify(proj, good, 0)
        # a material the build read that the layout does not allow
        strict = self.layout("builder.pub", "rsa", ONLY_C)
        out = self.verify(proj, strict, 1)
        self.assertIn("src/msg.h", out)

        # a link that claims the builder's name but is another key's
        bad = os.path.join(self.user.home, "other-%s" % kid[:8])
        os.mkdir(bad)
        os.chown(bad, self.user.pw.pw_uid, self.user.pw.pw_gid)
        self.sh("footprint attest -q --key %s/other --name build "
                "-o %s/build.%s.link %s" % (
                    self.keys, bad, kid[:8], receipt))
        self.sh("cp %s/build.%s.link %s" % (bad, kid[:8], link))
        out = self.verify(proj, good, 1)
        self.assertIn("validly signed", out)
        # the right link again passes; then alter the product
        self.sh("footprint attest -q --key %s/builder --name build %s"
                % (self.keys, receipt), cwd=proj)
        self.verify(proj, good, 0)
        shutil.copy("/usr/bin/true", os.path.join(proj, "build", "hello"))
        out = self.verify(proj, good, 1)
        self.assertIn("build/hello", out)

    def test_ed25519_receipt_and_log_give_the_links_run_wrote(self):
        """ed25519 signs deterministically: the link run --attest wrote,
        and footprint attest of its receipt and of its log, are one."""
        proj = self.project()
        out_dir = tempfile.mkdtemp(prefix="fpattest-out-", dir="/tmp")
        os.chown(out_dir, self.user.pw.pw_uid, self.user.pw.pw_gid)
        self.addCleanup(shutil.rmtree, out_dir, True)
        receipt = self.traced_build(proj, "edbuilder",
                                    "--record %s/b.fplog "
                                    "--attest-out %s/run.link"
                                    % (out_dir, out_dir))
        self.sh("cp %s %s/r.json" % (receipt, out_dir))
        for src in ("r.json", "b.fplog"):
            self.sh("footprint attest -q -k keys/edbuilder -n build "
                    "-o %s/%s.link %s/%s" % (out_dir, src, out_dir, src))
        with open(os.path.join(out_dir, "run.link"), "rb") as f:
            run_link = f.read()
        for src in ("r.json", "b.fplog"):
            with open(os.path.join(out_dir, src + ".link"), "rb") as f:
                self.assertEqual(f.read(), run_link, src)
        with open(os.path.join(out_dir, "r.json"), "rb") as f:
            receipt_sha = hashlib.sha256(f.read()).hexdigest()
        signed = json.loads(run_link)["signed"]
        self.assertEqual(signed["byproducts"]["receipt-sha256"],
                         receipt_sha)
        # in-toto-verify with the ed25519 functionary
        self.sh("cp %s/run.link build.%s.link"
                % (out_dir, self.keyid("edbuilder")[:8]), cwd=proj)
        self.verify(proj, self.layout("edbuilder.pub", "ed25519",
                                      ALLOW_SRC), 0)
        # --materials-all: the whole before snapshot, from the log only
        self.sh("footprint attest -q -k keys/edbuilder -n build "
                "--materials-all -o %s/all.link %s/b.fplog"
                % (out_dir, out_dir))
        with open(os.path.join(out_dir, "all.link")) as f:
            self.assertEqual(json.load(f)["signed"]["byproducts"]
                             ["materials"], "before-snapshot")
        rc, out = self.sh("footprint attest -k keys/edbuilder -n build "
                          "--materials-all %s/r.json" % out_dir, want=2)
        self.assertIn("log", out)

    def check_statement(self, key, receipt, pubpem):
        st = "%s.%s.jsonl" % (receipt, key)
        self.sh("footprint attest -q -k keys/%s -n build --format "
                "statement -o %s %s" % (key, st, receipt))
        with open(st) as f:
            text = f.read()
        self.assertEqual(text.count("\n"), 1, "one line")
        env = json.loads(text)
        body = base64.b64decode(env["payload"])
        ptype = env["payloadType"].encode()
        pae = b"DSSEv1 %d %s %d %s" % (len(ptype), ptype, len(body), body)
        d = tempfile.mkdtemp(prefix="fpdsse-")
        self.addCleanup(shutil.rmtree, d, True)
        with open(os.path.join(d, "pae"), "wb") as f:
            f.write(pae)
        with open(os.path.join(d, "sig"), "wb") as f:
            f.write(base64.b64decode(env["signatures"][0]["sig"]))
        opts = ["-pkeyopt", "rsa_padding_mode:pss", "-pkeyopt",
                "rsa_pss_saltlen:32", "-digest", "sha256"] \
            if key != "edbuilder" else []
        p = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin",
                            "-inkey", pubpem, "-rawin", "-in",
                            os.path.join(d, "pae"), "-sigfile",
                            os.path.join(d, "sig")] + opts,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertEqual(p.returncode, 0, p.stdout.decode())
        self.assertIn(b"Signature Verified Successfully", p.stdout)
        # a byte changed in the payload: openssl says no
        with open(os.path.join(d, "pae"), "wb") as f:
            f.write(pae.replace(b"hello", b"jello", 1))
        p = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin",
                            "-inkey", pubpem, "-rawin", "-in",
                            os.path.join(d, "pae"), "-sigfile",
                            os.path.join(d, "sig")] + opts,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(env["signatures"][0]["keyid"], self.keyid(key))
        return env, json.loads(body)

    def test_statement_verifies_with_openssl_and_the_schema(self):
        try:
            from jsonschema import Draft202012Validator
        except ImportError:
            self.skipTest("python3-jsonschema is missing")
        with open(SCHEMA) as f:
            schema = json.load(f)
        Draft202012Validator.check_schema(schema)
        proj = self.project()
        receipt = self.traced_build(proj, "builder")
        # ed25519's public key is raw hex: as a PEM for openssl
        with open(os.path.join(self.keys, "edbuilder.pub")) as f:
            raw = bytes.fromhex(json.load(f)["keyval"]["public"])
        edpem = os.path.join(self.user.home, "edbuilder.pem")
        der = bytes.fromhex("302a300506032b6570032100") + raw
        with open(edpem, "w") as f:
            f.write("-----BEGIN PUBLIC KEY-----\n%s\n"
                    "-----END PUBLIC KEY-----\n"
                    % base64.b64encode(der).decode())
        for key, pem in (("builder", os.path.join(self.keys,
                                                  "builder.pub")),
                         ("edbuilder", edpem)):
            env, st = self.check_statement(key, receipt, pem)
            self.assertEqual(
                list(Draft202012Validator(schema).iter_errors(st)), [])
            envs = {"$ref": "#/$defs/envelope", "$defs": schema["$defs"]}
            self.assertEqual(
                list(Draft202012Validator(envs).iter_errors(env)), [])
            names = [s["name"] for s in st["subject"]]
            self.assertIn("build/hello", names)
            deps = [d["name"] for d in
                    st["predicate"]["buildDefinition"]
                    ["resolvedDependencies"]]
            self.assertEqual(deps, ["CMakeLists.txt", "src/main.c",
                                    "src/msg.h"])
        # and the link validates against the schema's link
        link = receipt + ".link"
        self.sh("footprint attest -q -k keys/builder -n build -o %s %s"
                % (link, receipt))
        with open(link) as f:
            doc = json.load(f)
        links = {"$ref": "#/$defs/link", "$defs": schema["$defs"]}
        self.assertEqual(list(Draft202012Validator(links)
                              .iter_errors(doc)), [])

    def test_failed_verdict_is_attested_unless_only_ok(self):
        proj = self.project()
        # writes outside what is allowed: the verdict fails
        rc, out = self.sh("sudo footprint run -q --attest keys/builder "
                          "--attest-name build --attest-out %s/f.link -- "
                          "sh -c 'echo x > %s/stray'" % (proj, proj),
                          want=1)
        with open(os.path.join(proj, "f.link")) as f:
            by = json.load(f)["signed"]["byproducts"]
        self.assertEqual(by["verdict"], "failed")
        self.assertTrue(any("stray" in r for r in by["reasons"]), by)
        rc, out = self.sh("sudo footprint run -q --attest keys/builder "
                          "--attest-name build --attest-only-ok "
                          "--attest-out %s/g.link -- "
                          "sh -c 'echo x > %s/stray2'" % (proj, proj),
                          want=1)
        self.assertIn("--attest-only-ok", out)
        self.assertFalse(os.path.exists(os.path.join(proj, "g.link")))

    def test_ok_run_whose_product_in_toto_cannot_name_exits_1(self):
        """A product named in bytes that are not UTF-8: the verdict is ok,
        but a link without it would let DISALLOW pass; none is written."""
        proj = self.project()
        script = "printf x > \"$(printf 'bad\\377')\""
        rc, out = self.sh("sudo footprint run -q --allow 'bad*' -- sh -c "
                          "'%s'" % script.replace("'", "'\\''"),
                          cwd=proj, want=0)
        rc, out = self.sh("sudo footprint run -q --allow 'bad*' --attest "
                          "%s/builder --attest-name build --attest-out "
                          "%s.link -- sh -c '%s'"
                          % (self.keys, proj,
                             script.replace("bad", "bad2")
                             .replace("'", "'\\''")),
                          cwd=proj, want=1)
        self.assertIn("UTF-8", out)
        self.assertFalse(os.path.exists(proj + ".link"))

    def test_key_is_read_with_the_users_rights_never_a_link(self):
        proj = self.project()
        secret = os.path.join(self.user.home, "root-key")
        shutil.copy(os.path.join(self.keys, "builder"), secret)
        os.chmod(secret, 0o600)  # root's: the user cannot read it
        rc, out = self.sh("sudo footprint run -q --attest %s --attest-name "
                          "build -- touch %s/ran" % (secret, proj), want=2)
        self.assertIn("permission denied", out)
        self.assertFalse(os.path.exists(os.path.join(proj, "ran")),
                         "nothing runs with a key it cannot read")
        os.unlink(secret)
        link = os.path.join(self.user.home, "key-link")
        os.symlink(os.path.join(self.keys, "builder"), link)
        self.addCleanup(os.unlink, link)
        rc, out = self.sh("sudo footprint run -q --attest %s --attest-name "
                          "build -- touch %s/ran" % (link, proj), want=2)
        self.assertIn("symbolic link", out)
        self.assertFalse(os.path.exists(os.path.join(proj, "ran")))
        rc, out = self.sh("footprint attest -k %s -n build /dev/null"
                          % link, want=2)
        self.assertIn("symbolic link", out)


class SidecarAttestTest(unittest.TestCase):
    """sidecar stop --attest: the link of the job's very receipt."""

    def test_stop_attests_the_receipt_it_writes(self):
        su.check_binary()
        tool("in-toto-keygen")
        mnt = cgroup2_mount()
        if mnt is None:
            su.cannot_test("no cgroup v2 mount")
        base = os.path.realpath(tempfile.mkdtemp(prefix="fpsc-attest-"))
        self.addCleanup(shutil.rmtree, base, True)
        ws, out = os.path.join(base, "ws"), os.path.join(base, "out")
        os.mkdir(ws)
        os.mkdir(out)
        with open(os.path.join(ws, "a.c"), "w") as f:
            f.write("int main(void) { return 0; }\n")
        subprocess.run(["in-toto-keygen", "-t", "ed25519",
                        os.path.join(base, "ci")], check=True,
                       stdout=subprocess.DEVNULL)
        cg_rel = "/fptest-attest-%s" % uuid.uuid4().hex[:10]
        cg = mnt + cg_rel
        os.mkdir(cg)

        def cleanup():
            subprocess.run([su.FOOTPRINT, "sidecar", "stop", "--state",
                            os.path.join(base, "state"), "-q"],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
            try:
                with open(os.path.join(cg, "cgroup.kill"), "w") as f:
                    f.write("1")
            except OSError:
                pass
            for _ in range(100):
                try:
                    os.rmdir(cg)
                    break
                except OSError:
                    pass
        self.addCleanup(cleanup)

        def step(script):
            full = 'echo $$ > "%s/cgroup.procs" && cd "%s" && %s' % (
                cg, ws, script)
            return subprocess.run(
                ["sh", "-c", full], stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, timeout=120,
                env=su.base_env(FP=su.FOOTPRINT, B=base, CG=cg_rel))
        p = step('"$FP" sidecar start --state "$B/state" --root . '
                 '--cgroup "$CG" --allow "/tmp/cc*"')
        self.assertEqual(p.returncode, 0, p.stdout)
        p = step("cc -o a a.c")
        self.assertEqual(p.returncode, 0, p.stdout)
        p = step('"$FP" sidecar stop --state "$B/state" --receipt '
                 '"$B/out/r.json" --attest "$B/ci" --attest-name build '
                 '--attest-out "$B/out/build.link"')
        self.assertIn(p.returncode, (0, 1), p.stdout)
        with open(os.path.join(out, "r.json"), "rb") as f:
            raw = f.read()
        with open(os.path.join(out, "build.link")) as f:
            signed = json.load(f)["signed"]
        self.assertEqual(signed["byproducts"]["receipt-sha256"],
                         hashlib.sha256(raw).hexdigest())
        self.assertEqual(signed["materials"], {"a.c": {
            "sha256": hashlib.sha256(
                b"int main(void) { return 0; }\n").hexdigest()}})
        self.assertIn("a", signed["products"])
        self.assertEqual(signed["byproducts"]["verdict"],
                         "ok" if json.loads(raw)["ok"] else "failed")


if __name__ == "__main__":
    unittest.main()
