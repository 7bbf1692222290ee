"""What footprint, a root process, takes from the environment it starts
with. OPENSSL_CONF can name a configuration that loads a provider module
into the process: footprint reads no OpenSSL configuration at all. The one
here activates a module that does not exist; when footprint still read it,
every hash failed and each file of the tree was files.unreadable.

Run from the top of the tree, as root:
  FOOTPRINT=build/footprint FOOTPRINT_REQUIRE_BPF=1 \\
      /usr/bin/python3 -m unittest -v tests/integration/test_sec_env.py
"""

import hashlib
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sudo_util as su  # noqa: E402
from sudo_util import EXIT_OK, Sandbox  # noqa: E402

MISSING_MODULE_CONF = """config_diagnostics = 1
openssl_conf = fp_init
[fp_init]
providers = fp_providers
[fp_providers]
missing = missing_sect
[missing_sect]
module = %s
activate = 1
"""


def setUpModule():
    su.check_binary()


class OpensslConfTest(unittest.TestCase):
    def test_openssl_conf_in_the_environment_is_not_read(self):
        sb = Sandbox(self)
        with open(sb.in_root("kept"), "w") as f:
            f.write("kept\n")
        conf = os.path.join(sb.base, "missing-module.cnf")
        with open(conf, "w") as f:
            f.write(MISSING_MODULE_CONF %
                    os.path.join(sb.base, "no-such-module.so"))
        made = sb.in_root("made")
        r = sb.run(["sh", "-c", "printf made > " + made],
                   opts=["--allow", made],
                   env=su.base_env(OPENSSL_CONF=conf))
        self.assertEqual(r.rc, EXIT_OK, r.describe())
        self.assertEqual(r.r["files"]["unreadable"], [], r.describe())
        added = r.r["files"]["added"]
        self.assertEqual([a["path"] for a in added], [made], r.describe())
        self.assertEqual(added[0]["after"]["sha256"],
                         hashlib.sha256(b"made").hexdigest())


if __name__ == "__main__":
    unittest.main()
