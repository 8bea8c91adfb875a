import sys
from pathlib import Path

# the tool runners (tools.py) are imported by name
HERE = str(Path(__file__).parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
