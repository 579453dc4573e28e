"""What a search network's description may hold, as a checkpoint records it.

The network itself is :mod:`yyenvs.networks.search_network` (it needs torch);
this module is what :mod:`yyenvs.networks.checkpoint` checks a file's
description by.
"""
from __future__ import annotations

#: the description's class name
PV_CLASS = "PolicyValueNet"
#: padding may be absent (zeros), discount (1: the values are undiscounted returns) and
#: action_features (0: the network reads no per-action features)
PV_FIELDS = ("class", "hidden", "channels", "blocks", "num_players", "padding", "discount", "action_features")
#: how its convolutions pad the board's edges
PV_PADDINGS = ("zeros", "circular")


def check_fields(net) -> None:
    """Check a file's description field by field (``net``: the checkpoint reader's field checker,
    which refuses a field naming the file and the field)."""
    net.known(PV_FIELDS)
    net.int_list("hidden", max_len=16)
    net.int("channels", 0, 4096)
    net.int("blocks", 0, 64)
    net.int("num_players", 1, 4)
    net.str("padding", PV_PADDINGS, required=False)
    net.number("discount", 0.0, required=False, hi=1.0)
    net.int("action_features", 0, 64, required=False)
