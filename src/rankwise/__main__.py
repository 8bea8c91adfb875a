"""``python -m rankwise``: the same as the ``rankwise`` command."""

import sys

if __name__ == "__main__":
    try:
        from rankwise.cli import main
    except KeyboardInterrupt:  # Ctrl-C at start-up: quiet, as once the command runs
        sys.stderr.write("\nrankwise: interrupted\n")
        sys.exit(130)
    sys.exit(main())
