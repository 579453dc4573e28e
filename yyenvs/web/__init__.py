"""Games in the browser: self-contained replay pages of game records (:mod:`.pages`) and a local
server where a person plays an agent (:mod:`.server`).  Imports the core, the games and the
agents; nothing below imports it."""
