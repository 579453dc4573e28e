"""``python -m yyenvs``: the same as the ``yyenvs`` command."""
import sys

from yyenvs.commands.cli import main

sys.exit(main())
