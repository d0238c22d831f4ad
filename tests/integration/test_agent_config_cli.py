"""test_agent_config_cli.py - schedio-agent's configuration as a user meets
it: --check-config prints the configuration the agent would use (file,
then flags, token hidden) and refuses what a reload refuses; a missing --config file, an unknown key or a bad value stops
the agent with one line naming the file and line; bad flags exit 2."""
import os
import tempfile
import unittest

import harness
from harness import binary, run


class AgentConfigCli(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="schedio-agent-conf-")

    def tearDown(self):
        run(["rm", "-rf", self.d])

    def conf(self, text):
        p = os.path.join(self.d, "agent.conf")
        with open(p, "w") as f:
            f.write(text)
        return p

    def test_check_config_prints_file_then_flags(self):
        p = self.conf("[agent]\nserver = http://10.0.0.1:8080\ntoken = hunter2\ninterval = 30\n")
        r = run([binary("schedio-agent"), "--config", p, "--interval", "5", "--spool-dir", "/srv/spool",
                 "--check-config"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("server = http://10.0.0.1:8080", r.stdout)
        self.assertIn("interval = 5", r.stdout)  # the flag wins over the file
        self.assertIn("spool_dir = /srv/spool", r.stdout)
        self.assertNotIn("hunter2", r.stdout)

    def test_check_config_refuses_what_a_reload_refuses(self):
        # The same validation as start and reload: exit 1 where the agent would keep the old one.
        p = self.conf(f"server = http://10.0.0.1:8080\ntoken_file = {os.path.join(self.d, 'missing')}\n")
        r = run([binary("schedio-agent"), "--config", p, "--check-config"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read token_file", r.stderr)
        r = run([binary("schedio-agent"), "--config", self.conf("server = http://a\ntoken = x\n"),
                 "--ca-file", "/nonexistent/ca.pem", "--check-config"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("ca_file", r.stderr)
        # what it prints is what the agent would use, not a report from the running agent
        r = run([binary("schedio-agent"), "--config", self.conf("server = http://a\n"), "--check-config"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("would use", r.stdout)

    def test_missing_explicit_config_is_an_error(self):
        r = run([binary("schedio-agent"), "--config", os.path.join(self.d, "nope.conf"), "--check-config"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("nope.conf", r.stderr)

    def test_unknown_key_and_bad_value_name_the_line(self):
        r = run([binary("schedio-agent"), "--config", self.conf("server = http://a\nsevrer = http://b\n"),
                 "--check-config"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("agent.conf:2: unknown key 'sevrer'", r.stderr)
        r = run([binary("schedio-agent"), "--config", self.conf("server = http://a\nspool_max_bytes = lots\n"),
                 "--check-config"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("agent.conf:2: spool_max_bytes wants bytes", r.stderr)

    def test_bad_flags_exit_2(self):
        for args in (["--interval", "0"], ["--server", "ftp://x"], ["--spool-max-bytes", "1Q"],
                     ["--ca-file", "relative.pem"]):
            r = run([binary("schedio-agent"), "--config", os.devnull, *args, "--check-config"])
            self.assertEqual(r.returncode, 2, args)
            self.assertIn("--" + args[0].lstrip("-"), r.stderr)

    def test_daemon_refuses_an_unusable_configuration(self):
        r = run([binary("schedio-agent"), "--config", os.devnull, "--server", "http://127.0.0.1:9",
                 "--state-dir", self.d, "--token-file", os.path.join(self.d, "missing-token")], timeout=20)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read token_file", r.stderr)


if __name__ == "__main__":
    harness.main()
