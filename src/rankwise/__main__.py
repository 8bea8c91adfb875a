"""``python -m rankwise``: the same as the ``rankwise`` command."""

import sys

from rankwise.cli import main

if __name__ == "__main__":
    sys.exit(main())
