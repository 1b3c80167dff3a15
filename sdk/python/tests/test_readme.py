"""The README's examples are the example files, verbatim (package-check runs quickstart.py against the API)."""

from __future__ import annotations

import os
import re
import unittest

from tests.fake import ROOT


class ReadmeTest(unittest.TestCase):
    def test_code_blocks_are_the_examples(self) -> None:
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
        files = []
        for name in ("quickstart.py", "receiver.py"):
            with open(os.path.join(ROOT, "examples", name), encoding="utf-8") as f:
                files.append(f.read())
        self.assertEqual(blocks, files)

    def test_examples_compile(self) -> None:
        for name in ("quickstart.py", "receiver.py"):
            path = os.path.join(ROOT, "examples", name)
            with open(path, encoding="utf-8") as f:
                compile(f.read(), path, "exec")


if __name__ == "__main__":
    unittest.main()
