"""The command line: ``yyenvs <command>``, each command's arguments and what it prints."""
