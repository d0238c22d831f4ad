"""test_programs_cli.py - every program's command-line contract: --help,
--version, exit 2 with one line on bad flags; schedio-agent --once prints a
schedio.report.v1 report with the host inventory; schedio talks to a server."""
import json
import os
import unittest

from harness import Server, binary, main, run


class Programs(unittest.TestCase):
    def test_every_program_has_help_and_version(self):
        for prog in ("schedio", "schedio-agent", "schedio-server"):
            r = run([binary(prog), "--help"])
            self.assertEqual(r.returncode, 0, prog)
            self.assertIn("Usage:", r.stdout)
            r = run([binary(prog), "--version"])
            self.assertEqual(r.returncode, 0, prog)
            self.assertRegex(r.stdout.strip(), rf"^{prog} \d+\.\d+\.\d+$")

    def test_bad_flags_exit_2(self):
        cases = [
            ("schedio", ["--bogus"]), ("schedio", ["nosuchcommand"]), ("schedio", []),
            ("schedio-agent", ["--bogus"]), ("schedio-agent", ["--once", "--duration", "0", "--stdout"]),
            ("schedio-agent", ["--once"]), ("schedio-agent", ["--server", "ftp://x"]),
            ("schedio", ["health", "--bogus"]),
        ]
        for prog, args in cases:
            r = run([binary(prog), *args])
            self.assertEqual(r.returncode, 2, (prog, args, r.stderr))
            self.assertTrue(r.stderr.strip(), (prog, args))

    def test_schedio_help_lists_subcommands(self):
        r = run([binary("schedio"), "--help"])
        self.assertIn("health", r.stdout)
        self.assertIn("Commands:", r.stdout)

    def test_agent_once_prints_report_with_inventory(self):
        r = run([binary("schedio-agent"), "--once", "--duration", "1", "--stdout"], timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = json.loads(r.stdout)
        self.assertEqual(rep["schema"], "schedio.report.v1")
        self.assertIsInstance(rep["seq"], int)
        iv = rep["interval"]
        self.assertGreaterEqual(iv["end_ms"] - iv["start_ms"], 1000)
        self.assertLess(iv["end_ms"] - iv["start_ms"], 5000)
        host = rep["host"]
        self.assertEqual(host["id"], open("/etc/machine-id").read().strip())
        self.assertEqual(host["hostname"], os.uname().nodename)
        self.assertEqual(host["kernel"], os.uname().release)
        self.assertEqual(host["cpus"], os.sysconf("SC_NPROCESSORS_ONLN"))

    def test_agent_disable_leaves_collectors_out(self):
        r = run([binary("schedio-agent"), "--once", "--duration", "1", "--stdout", "--disable", "runqlat,iocost"],
                timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = json.loads(r.stdout)
        self.assertNotIn("runqlat", rep)
        self.assertNotIn("iocost", rep)
        self.assertIn("sched_ext", rep)
        for bad in ("host", "bogus", "runqlat,iocost,nope"):
            r = run([binary("schedio-agent"), "--once", "--stdout", "--disable", bad])
            self.assertEqual(r.returncode, 2, (bad, r.stderr))
            self.assertIn("is not a collector", r.stderr)

    def test_cli_health_against_real_server(self):
        with Server() as s:
            r = run([binary("schedio"), "health", "--server", s.url])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("ok", r.stdout)
        r = run([binary("schedio"), "health", "--server", "http://127.0.0.1:1"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("schedio health:", r.stderr)


if __name__ == "__main__":
    main()
