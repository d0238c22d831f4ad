"""test_packages.py - the Debian packages build from this build folder with
CPack, and hold what the README promises where it promises it: binaries,
systemd units and configs (as conffiles), with Depends that cover every
library the binaries link, maintainer scripts, units systemd accepts (the
agent's with CAP_SYSLOG and a configuration check before each reload), and
binaries that run once unpacked."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import harness

BUILD = os.environ.get("SCHEDIO_BUILD") or os.path.join(harness.SOURCE, "build")

EXPECTED = {
    "schedio-agent": ["./usr/sbin/schedio-agent", "./usr/bin/schedio", "./lib/systemd/system/schedio-agent.service",
                      "./etc/schedio/agent.conf"],
    "schedio-server": ["./usr/bin/schedio-server", "./lib/systemd/system/schedio-server.service",
                       "./etc/schedio/server.env", "./usr/share/schedio/web/index.html"],
}
CONFFILES = {"schedio-agent": "/etc/schedio/agent.conf", "schedio-server": "/etc/schedio/server.env"}


MULTIARCH = subprocess.run(["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()


class PackagesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="schedio-deb-")
        r = harness.run(["cpack", "-G", "DEB", "-B", cls.out], cwd=BUILD, timeout=600)
        if r.returncode != 0:
            raise AssertionError("cpack failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
        cls.debs = {}
        for f in os.listdir(cls.out):
            m = re.match(r"(schedio-(?:agent|server))_[^_]+_[a-z0-9]+\.deb$", f)
            if m:
                cls.debs[m.group(1)] = os.path.join(cls.out, f)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def field(self, deb, name):
        return harness.run(["dpkg-deb", "-f", deb, name]).stdout.strip()

    def test_both_packages_hold_files_at_documented_paths(self):
        self.assertEqual(sorted(self.debs), ["schedio-agent", "schedio-server"])
        for pkg, paths in EXPECTED.items():
            listing = harness.run(["dpkg-deb", "-c", self.debs[pkg]]).stdout
            files = {line.split()[-1] for line in listing.splitlines()}
            for p in paths:
                self.assertIn(p, files, f"{pkg} lacks {p}")
            # Each program ships in exactly one package.
            other = "schedio-server" if pkg == "schedio-agent" else "schedio-agent"
            for p in EXPECTED[other]:
                if "/bin/" in p or "/sbin/" in p or p.endswith(".service"):
                    self.assertNotIn(p, files)

    def test_control_fields_conffiles_and_scripts(self):
        for pkg, deb in self.debs.items():
            self.assertEqual(self.field(deb, "Package"), pkg)
            info = harness.run(["dpkg-deb", "-I", deb]).stdout
            for script in ("postinst", "prerm", "postrm", "conffiles"):
                self.assertIn(script, info)
            ctl = tempfile.mkdtemp(dir=self.out)
            subprocess.run(["dpkg-deb", "-e", deb, ctl], check=True)
            with open(os.path.join(ctl, "conffiles")) as f:
                self.assertEqual(f.read().split(), [CONFFILES[pkg]])
            with open(os.path.join(ctl, "postinst")) as f:
                self.assertIn(f"{pkg}.service", f.read())

    def test_agent_unit_keeps_cap_syslog_and_checks_before_reload(self):
        root = tempfile.mkdtemp(dir=self.out)
        subprocess.run(["dpkg-deb", "-x", self.debs["schedio-agent"], root], check=True)
        with open(os.path.join(root, "lib/systemd/system/schedio-agent.service")) as f:
            lines = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        keys = {}
        for l in lines:
            k, _, v = l.partition("=")
            keys.setdefault(k, []).append(v)
        # ProtectKernelLogs= drops CAP_SYSLOG from the bounding set, and with it kallsyms addresses.
        self.assertNotIn("ProtectKernelLogs", keys)
        for k in ("CapabilityBoundingSet", "AmbientCapabilities"):
            self.assertIn("CAP_SYSLOG", keys[k][0].split())
        # A refused configuration fails the reload: the check runs first, with ExecStart's flags.
        self.assertEqual(keys["ExecReload"], [keys["ExecStart"][0] + " --check-config", "/bin/sh -c 'kill -HUP $MAINPID'"])

    def test_depends_cover_linked_libraries(self):
        if harness.SANITIZE:
            self.skipTest("sanitizer builds link libasan, which no package should depend on")
        for pkg, deb in self.debs.items():
            depends = {d.strip().split()[0] for d in self.field(deb, "Depends").split(",")}
            root = tempfile.mkdtemp(dir=self.out)
            subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
            for p in EXPECTED[pkg]:
                if "/bin/" not in p and "/sbin/" not in p:
                    continue
                dyn = harness.run(["readelf", "-d", os.path.join(root, p)]).stdout
                for lib in re.findall(r"\(NEEDED\).*\[(.+?)\]", dyn):
                    # the copy in this architecture's library folder, not e.g. /lib32
                    lines = harness.run(["dpkg", "-S", "*/" + lib]).stdout.splitlines()
                    native = [l for l in lines if f"/{MULTIARCH}/" in l] or lines
                    owner = native[0].split(":")[0] if native else ""
                    self.assertTrue(owner, f"no package owns {lib}")
                    self.assertIn(owner, depends, f"{pkg}: {p} links {lib} from {owner}, not in Depends")

    def test_one_libbpf_per_binary(self):
        # The CLI carries its own libbpf >= 1.4 (static), the agent Debian 12's shared one:
        # neither links the other's, and the package still depends on libbpf1 for the agent.
        deb = self.debs["schedio-agent"]
        root = tempfile.mkdtemp(dir=self.out)
        subprocess.run(["dpkg-deb", "-x", deb, root], check=True)

        def needed(p):
            return re.findall(r"\(NEEDED\).*\[(.+?)\]", harness.run(["readelf", "-d", os.path.join(root, p)]).stdout)
        self.assertFalse([l for l in needed("usr/bin/schedio") if l.startswith("libbpf.so")])
        self.assertIn("libbpf.so.1", needed("usr/sbin/schedio-agent"))
        self.assertIn("libbpf1", self.field(deb, "Depends"))
        r = harness.run([os.path.join(root, "usr/bin/schedio"), "scx", "version"])
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.match(r"schedio scx: libbpf (\d+)\.(\d+) \(headers (\d+)\.(\d+),", r.stdout)
        self.assertTrue(m, r.stdout)
        self.assertGreaterEqual((int(m[1]), int(m[2])), (1, 4))
        self.assertEqual((m[1], m[2]), (m[3], m[4]))

    def test_unpacked_binaries_run_and_units_verify(self):
        root = tempfile.mkdtemp(dir=self.out)
        for deb in self.debs.values():
            subprocess.run(["dpkg-deb", "-x", deb, root], check=True)
        for prog in ("usr/sbin/schedio-agent", "usr/bin/schedio-server", "usr/bin/schedio"):
            r = harness.run([os.path.join(root, prog), "--version"])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("0.", r.stdout)
        # The shipped example config is a valid agent configuration.
        r = harness.run([os.path.join(root, "usr/sbin/schedio-agent"), "--config",
                         os.path.join(root, "etc/schedio/agent.conf"), "--check-config"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("interval = 10", r.stdout)
        if not shutil.which("systemd-analyze"):
            self.skipTest("no systemd-analyze")
        units = tempfile.mkdtemp(dir=self.out)
        for unit, binary in (("schedio-agent.service", "/usr/sbin/schedio-agent"),
                             ("schedio-server.service", "/usr/bin/schedio-server")):
            with open(os.path.join(root, "lib/systemd/system", unit)) as f:
                text = f.read()
            # verify wants ExecStart to exist: point it at the unpacked copy.
            with open(os.path.join(units, unit), "w") as f:
                f.write(text.replace(binary, root + binary))
            r = harness.run(["systemd-analyze", "verify", os.path.join(units, unit)])
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertEqual(r.stderr.strip(), "", r.stderr)


if __name__ == "__main__":
    harness.main()
