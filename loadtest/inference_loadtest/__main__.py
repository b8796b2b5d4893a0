"""``python -m inference_loadtest``: the same as the ``inference-loadtest`` command."""

import sys

from inference_loadtest.cli import main

sys.exit(main())
