"""``python -m graphblast_py compare ...``: the comparison suite (docs/suite.md)."""
import sys

from graphblast_py.suite.cli import main

if __name__ == "__main__":
    sys.exit(main())
