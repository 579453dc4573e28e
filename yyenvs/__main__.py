"""``python -m yyenvs``: the same as the ``yyenvs`` command."""
import sys

from yyenvs.cli import main

sys.exit(main())
