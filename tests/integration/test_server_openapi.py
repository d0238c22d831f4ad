"""test_server_openapi.py - schema/openapi.yaml (with its fragments,
schema/openapi-*.yaml) documents every path of the route table
(server/http/route.c) and nothing that is not served."""
import os
import re
import unittest

from harness import SOURCE, main


class OpenApi(unittest.TestCase):
    def test_every_route_is_documented(self):
        routes = set(re.findall(r'\{ "[A-Z]+", "([^"]+)", api_\w+, (?:true|false) \}',
                                open(os.path.join(SOURCE, "server", "http", "route.c")).read()))
        documented = set()
        for name in os.listdir(os.path.join(SOURCE, "schema")):
            if re.match(r"openapi.*\.ya?ml$", name):  # openapi.yaml and its fragments (openapi-ssd.yaml)
                documented |= set(re.findall(r"^  (/\S*):\s*$",
                                             open(os.path.join(SOURCE, "schema", name)).read(), re.M))
        self.assertIn("/api/v1/reports", routes)
        self.assertEqual(routes - documented, set(), "routes missing from schema/openapi.yaml")
        self.assertEqual(documented - routes, set(), "documented paths the server does not serve")


if __name__ == "__main__":
    main()
